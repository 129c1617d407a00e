// A titled, copyable code sample. The block scrolls sideways on a narrow screen (the page never does), so it is
// focusable: keyboard users can scroll it too.
import { CopyButton } from "./copy-button";

export function CodeBlock({ title, code, testId }: { title: string; code: string; testId?: string }) {
  return (
    <figure className="min-w-0 overflow-hidden rounded-lg border border-slate-200 bg-slate-900" data-testid={testId}>
      <figcaption className="flex items-center justify-between gap-2 border-b border-slate-700 px-3 py-2 text-xs font-medium text-slate-200">
        <span>{title}</span>
        <CopyButton
          value={code}
          label={title}
          className="border-slate-600 bg-slate-800 text-slate-100 hover:bg-slate-700"
        />
      </figcaption>
      <pre
        tabIndex={0}
        aria-label={title}
        className="overflow-x-auto p-3 text-xs leading-relaxed text-slate-100 focus-visible:outline-2 focus-visible:outline-violet-400"
      >
        <code>{code}</code>
      </pre>
    </figure>
  );
}
