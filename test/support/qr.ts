// Reads the QR code exactly as Chromium rendered it: a screenshot of the element, decoded by jsQR.
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'puppeteer-core';

export async function readQr(page: Page, selector: string): Promise<string> {
  const el = await page.$(selector);
  if (!el) throw new Error(`no ${selector} on the page`);
  const png = PNG.sync.read(Buffer.from(await el.screenshot({ type: 'png' })));
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  if (!code) throw new Error('no QR code could be read from the rendered element');
  return code.data;
}
