"use client";
// A moment shown two ways: ISO 8601 in UTC (the same on every screen, rendered on the server too) and, once the page
// runs in the reader's browser, the same moment in their own time zone and words.
import { useEffect, useState } from "react";

export function LocalTime({ ms, testId }: { ms: number; testId?: string }) {
  const iso = new Date(ms).toISOString();
  const [local, setLocal] = useState<string | null>(null);
  useEffect(() => {
    // The reader's zone is known only in the browser: formatting it on the server would show the server's.
    setLocal(new Intl.DateTimeFormat(undefined, { dateStyle: "long", timeStyle: "long" }).format(new Date(ms)));
  }, [ms]);
  return (
    <span data-testid={testId} className="inline-flex flex-wrap items-baseline gap-x-2">
      <time dateTime={iso} data-testid={testId ? `${testId}-utc` : undefined} className="font-mono">
        {iso.replace("T", " ").replace(/\.000Z$|Z$/, "")} UTC
      </time>
      {local && (
        <span data-testid={testId ? `${testId}-local` : undefined} className="text-slate-700">
          ({local}, your time)
        </span>
      )}
    </span>
  );
}
