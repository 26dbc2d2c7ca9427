/**
 * The incoming-message sound. The built-in one is synthesised once into a small WAV data: URI
 * (a 90 ms two-tone chime, 8 kHz 8-bit mono, ~1 KB), so the kit ships no audio asset.
 */
let builtIn: string | undefined;

export function builtInSound(): string {
  if (builtIn) return builtIn;
  const rate = 8000;
  const n = Math.round(rate * 0.09);
  const bytes = new Uint8Array(44 + n);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + n, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // PCM header size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate, true); // bytes per second
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, n, true);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const freq = i < n / 2 ? 880 : 1320;
    const envelope = Math.sin((Math.PI * i) / n); // fade in and out: no click
    bytes[44 + i] = Math.round(128 + 60 * envelope * Math.sin(2 * Math.PI * freq * t));
  }
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  builtIn = `data:audio/wav;base64,${btoa(bin)}`;
  return builtIn;
}

/** playSound plays url (or the built-in chime) and never throws: browsers refuse autoplay
 * before the user interacted with the page, and a sound is not worth an error. */
export function playSound(url?: string): void {
  try {
    if (typeof Audio === "undefined") return;
    const audio = new Audio(url || builtInSound());
    const p = audio.play() as Promise<void> | undefined;
    p?.catch(() => undefined);
  } catch {
    // Autoplay blocked or no audio support: stay silent.
  }
}
