// The dashboard's cards and its scrolling tables, shared by its panels.
import type { ReactNode } from "react";

/** A dashboard card with its heading. */
export function Section({
  title,
  headingId,
  children,
  extra,
}: {
  title: string;
  headingId: string;
  children: ReactNode;
  extra?: ReactNode;
}) {
  return (
    <section
      aria-labelledby={headingId}
      className="min-w-0 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5"
    >
      <h2 id={headingId} className="text-lg font-semibold">
        {title} {extra}
      </h2>
      {children}
    </section>
  );
}

/** A wide table scrolls sideways inside its card on a narrow screen (the page never does); focusable for keyboards. */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={`${label} (table)`}
      tabIndex={0}
      className="mt-3 overflow-x-auto focus-visible:outline-2 focus-visible:outline-violet-600"
    >
      {children}
    </div>
  );
}
