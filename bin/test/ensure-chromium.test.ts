import { describe, expect, it } from "vitest";
import { APT_GET_PATH, CHROMIUM_PATH, ensureChromium, MISSING_CHROMIUM } from "./ensure-chromium.mjs";

/** A fake machine: the paths that exist, and the commands run (each succeeds unless listed in `failing`). */
function machine(paths: string[], opts: { failing?: string[]; installs?: boolean } = {}) {
  const present = new Set(paths);
  const ran: string[] = [];
  return {
    ran,
    exists: (p: string) => present.has(p),
    run: (command: string, args: string[]) => {
      const line = [command, ...args].join(" ");
      ran.push(line);
      if (opts.failing?.includes(line)) return false;
      if (line.startsWith("apt-get install") && opts.installs !== false) present.add(CHROMIUM_PATH);
      return true;
    },
  };
}

const mustNotRun = () => {
  throw new Error("nothing may be run");
};

describe("ensureChromium()", () => {
  it("does nothing when chromium is already installed", () => {
    const m = machine([CHROMIUM_PATH, APT_GET_PATH]);
    expect(ensureChromium({ exists: m.exists, run: mustNotRun, isRoot: true })).toEqual({ ok: true, installed: false });
  });

  it("installs Debian's chromium with apt-get as root when it is missing", () => {
    const m = machine([APT_GET_PATH]);
    expect(ensureChromium({ exists: m.exists, run: m.run, isRoot: true })).toEqual({ ok: true, installed: true });
    expect(m.ran).toEqual(["apt-get update -qq", "apt-get install -y -qq chromium"]);
  });

  it("stops with one line naming what to install when not root", () => {
    const m = machine([APT_GET_PATH]);
    const result = ensureChromium({ exists: m.exists, run: mustNotRun, isRoot: false });
    expect(result).toEqual({ ok: false, message: MISSING_CHROMIUM });
    expect(MISSING_CHROMIUM).not.toContain("\n");
    expect(MISSING_CHROMIUM).toContain("apt-get install chromium");
  });

  it("stops with the same line on a machine without apt-get", () => {
    const m = machine([]);
    expect(ensureChromium({ exists: m.exists, run: mustNotRun, isRoot: true })).toEqual({
      ok: false,
      message: MISSING_CHROMIUM,
    });
  });

  it.each([["apt-get update -qq"], ["apt-get install -y -qq chromium"]])("stops when `%s` fails", (failing) => {
    const m = machine([APT_GET_PATH], { failing: [failing] });
    expect(ensureChromium({ exists: m.exists, run: m.run, isRoot: true })).toEqual({
      ok: false,
      message: MISSING_CHROMIUM,
    });
  });

  it("stops when apt-get succeeds but chromium is still not at its path", () => {
    const m = machine([APT_GET_PATH], { installs: false });
    expect(ensureChromium({ exists: m.exists, run: m.run, isRoot: true })).toEqual({
      ok: false,
      message: MISSING_CHROMIUM,
    });
  });
});
