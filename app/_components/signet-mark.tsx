// Signet's mark: a seal with a check, drawn inline (no image request). Decorative beside the name.
export function SignetMark({ className = "h-7 w-7" }: { className?: string }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 64 64" className={className}>
      <rect width="64" height="64" rx="14" fill="#5b21b6" />
      <circle cx="32" cy="32" r="19" fill="none" stroke="#ede9fe" strokeWidth="4" />
      <path
        d="M23 32.5l6.5 6.5L42 25.5"
        fill="none"
        stroke="#ffffff"
        strokeWidth="5"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
