"use client";
// The navigation every page shares; the current page is marked for sight and for screen readers (aria-current).
import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Home" },
  { href: "/explorer", label: "Explorer" },
  { href: "/log", label: "Log" },
  { href: "/credits", label: "Credits" },
  { href: "/grants", label: "Grants" },
  { href: "/docs", label: "Docs" },
  { href: "/dashboard", label: "Dashboard" },
] as const;

export function SiteNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="w-full sm:w-auto">
      <ul className="flex flex-wrap items-center gap-x-1 gap-y-1 text-sm">
        {LINKS.map(({ href, label }) => {
          const current =
            href === "/"
              ? pathname === "/"
              : pathname === href ||
                pathname.startsWith(`${href}/`) ||
                (href === "/explorer" && pathname.startsWith("/r/"));
          return (
            <li key={href}>
              {href === "/docs" ? (
                // The API reference is its own document (Redoc), not a client-side route.
                <a href={href} className={linkClass(current)}>
                  {label}
                </a>
              ) : (
                <Link href={href} aria-current={current ? "page" : undefined} className={linkClass(current)}>
                  {label}
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function linkClass(current: boolean): string {
  return `block rounded-md px-2.5 py-1.5 font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600 ${
    current ? "bg-violet-100 text-violet-900" : "text-slate-700 hover:bg-slate-100 hover:text-slate-900"
  }`;
}
