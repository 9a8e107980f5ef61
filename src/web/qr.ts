// The QR code, rendered on the server as SVG (the `qrcode` package; nothing loaded by the browser),
// for the payment page (the pay URI) and the dashboard (the pay link).
import QRCode from 'qrcode';

export function qrSvg(text: string): Promise<string> {
  // M: survives a slightly blurry phone camera; margin 4 is the quiet zone the QR standard asks for.
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
}
