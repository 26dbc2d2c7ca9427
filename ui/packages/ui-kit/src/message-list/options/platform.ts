// Browser services the options use: the clipboard and the reader's language.

/** Copies text: the async clipboard API, else a hidden textarea and execCommand("copy"). */
export async function copyText(text: string): Promise<void> {
  if (typeof navigator !== "undefined" && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // not allowed here (permissions, insecure context): try the old way
    }
  }
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  const ok = typeof document.execCommand === "function" && document.execCommand("copy");
  ta.remove();
  if (!ok) throw new Error("The text could not be copied to the clipboard.");
}

// What the service accepts as a target language: letters, spaces, parentheses and hyphens.
const plainLanguage = /^[\p{L} ()-]{2,40}$/u;

/**
 * The language to translate into: the browser's (navigator.language), as an English name when
 * the platform knows it ("German", "Brazilian Portuguese"), else the tag ("de-AT", "de").
 */
export function translationLanguage(tag: string = typeof navigator !== "undefined" ? navigator.language : "en"): string {
  const t = tag || "en";
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(t);
    if (name && plainLanguage.test(name)) return name;
  } catch {
    // an unknown tag: fall through
  }
  if (plainLanguage.test(t)) return t;
  const primary = t.split(/[-_]/)[0] ?? "";
  return plainLanguage.test(primary) ? primary : "English";
}
