// The page's clock: browser code has no runtime, so this is where it reads the time (the server's code reads the
// runtime's Clock). Functions take the time as a parameter; the components that call them read it here.

/** Milliseconds since the epoch, by the browser's clock. */
export function browserNow(): number {
  return Date.now();
}
