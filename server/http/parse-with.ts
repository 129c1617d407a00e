// Request validation for the routes and the services they call: a zod schema's first issue as a stable 400.
import "server-only";
import type { z } from "zod";
import { AppError } from "../errors";

/** Validates `value` with a zod schema; the 400 names the first offending field in `detail`. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  throw new AppError("invalid_request", `${field}: ${issue?.message ?? "invalid"}`, { detail: field });
}
