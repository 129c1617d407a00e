// Renders the site's images from their SVG sources with Debian's chromium (offline, no outside fetch) and writes them
// into public/: the Open Graph card (1200×630), the Apple touch icon (180×180), a 512×512 icon, and favicon.ico (PNG
// frames of 16, 32 and 48 px in an ICO container). Run after changing docs/brand/og-image.svg or public/icon.svg:
//   npx tsx bin/dev/render-site-images.ts
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(import.meta.dirname, "../..");
const svg = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  /** The SVG drawn at width × height, as PNG bytes. */
  const render = async (source: string, width: number, height: number): Promise<Buffer> => {
    const page = await browser.newPage({ viewport: { width, height } });
    const sized = source
      .replace(/<svg([^>]*?)\swidth="\d+"\sheight="\d+"/, "<svg$1")
      .replace("<svg", `<svg width="${width}" height="${height}"`);
    await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${sized}</body></html>`);
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width, height } });
    await page.close();
    return png;
  };
  writeFileSync(path.join(ROOT, "public/og-image.png"), await render(svg("docs/brand/og-image.svg"), 1200, 630));
  const icon = svg("public/icon.svg");
  writeFileSync(path.join(ROOT, "public/apple-touch-icon.png"), await render(icon, 180, 180));
  writeFileSync(path.join(ROOT, "public/icon-512.png"), await render(icon, 512, 512));
  const frames = await Promise.all([16, 32, 48].map(async (size) => ({ size, png: await render(icon, size, size) })));
  writeFileSync(path.join(ROOT, "public/favicon.ico"), icoOf(frames));
} finally {
  await browser.close();
}

/** An ICO file whose frames are PNGs (allowed since Windows Vista, read by every current browser). */
function icoOf(frames: { size: number; png: Buffer }[]): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(frames.length, 4);
  let offset = 6 + 16 * frames.length;
  const entries = frames.map(({ size, png }) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size >= 256 ? 0 : size, 0);
    entry.writeUInt8(size >= 256 ? 0 : size, 1);
    entry.writeUInt8(0, 2);
    entry.writeUInt8(0, 3);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...frames.map((f) => f.png)]);
}
