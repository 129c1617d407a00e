-- One client address's count in a window may be spread over several rows, its shards: the row of shard 0 is keyed by
-- the address's hash as before, shard k's by the hash and ".k". Requests of different agents behind one address then
-- take different row locks instead of queueing, commit after commit, on one. The address's count is the sum of its
-- shards' rows in the current window.
--
-- count_ip_request counts one request on one of `p_shards` (the address's shard keys) and returns the address's count.
-- It counts on the row of `p_own` (the agent's shard) unless another request holds that row's lock, then on any shard
-- row no request holds, and only when every row is held (or none exists yet) does it wait for `p_own`'s. The other
-- shards are read after that, under a snapshot of their own (a volatile function's query takes one as it starts): each
-- hides at most the one request that holds its lock uncommitted, so a window admits at most (number of shards - 1)
-- requests past its limit.
CREATE FUNCTION "count_ip_request"("p_bucket" TEXT, "p_own" TEXT, "p_shards" TEXT[], "p_window_start" TIMESTAMPTZ)
RETURNS INTEGER LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  counted TEXT;
  own_count INTEGER;
  others INTEGER;
BEGIN
  IF cardinality("p_shards") > 1 THEN
    SELECT w."ip_hash" INTO counted FROM "ip_rate_limit_windows" w
    WHERE w."bucket" = "p_bucket" AND w."ip_hash" = ANY ("p_shards")
    ORDER BY w."ip_hash" = "p_own" DESC
    LIMIT 1 FOR UPDATE SKIP LOCKED;
  END IF;
  IF counted IS NOT NULL THEN
    UPDATE "ip_rate_limit_windows" w SET
      "count" = CASE WHEN w."window_start" = "p_window_start" THEN w."count" + 1 ELSE 1 END,
      "window_start" = "p_window_start"
    WHERE w."bucket" = "p_bucket" AND w."ip_hash" = counted
    RETURNING w."count" INTO own_count;
  ELSE
    counted := "p_own";
    INSERT INTO "ip_rate_limit_windows" AS w ("bucket", "ip_hash", "window_start", "count")
    VALUES ("p_bucket", "p_own", "p_window_start", 1)
    ON CONFLICT ("bucket", "ip_hash") DO UPDATE SET
      "count" = CASE WHEN w."window_start" = EXCLUDED."window_start" THEN w."count" + 1 ELSE 1 END,
      "window_start" = EXCLUDED."window_start"
    RETURNING w."count" INTO own_count;
  END IF;
  IF cardinality("p_shards") <= 1 THEN
    RETURN own_count;
  END IF;
  SELECT COALESCE(sum(w."count"), 0) INTO others FROM "ip_rate_limit_windows" w
  WHERE w."bucket" = "p_bucket" AND w."ip_hash" = ANY ("p_shards") AND w."ip_hash" <> counted
    AND w."window_start" = "p_window_start";
  RETURN own_count + others;
END
$$;
