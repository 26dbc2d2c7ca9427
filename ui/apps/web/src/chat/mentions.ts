// @-mentions in the composer: the mention being typed at the caret, the suggestions for it,
// putting the chosen one in the text, and the agents a text mentions that will not answer.

export interface Mentionable {
  uid: string;
  name: string;
  agent: boolean;
  /** In the conversation (an agent must be a group's member to answer there). */
  member: boolean;
}

/** The "@query" the caret is at the end of: where its "@" is and what follows it. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|[^A-Za-z0-9_<-])@([A-Za-z0-9_-]{0,64})$/.exec(before);
  if (!m) return undefined;
  return { start: caret - m[2]!.length - 1, query: m[2]! };
}

/** Suggestions for a query: uid or name starting with it first, then containing it. */
export function suggest(all: readonly Mentionable[], query: string, max = 8): Mentionable[] {
  const q = query.toLowerCase();
  const score = (m: Mentionable): number => {
    const uid = m.uid.toLowerCase();
    const name = m.name.toLowerCase();
    if (!q) return 1;
    if (uid.startsWith(q) || name.startsWith(q) || name.split(/\s+/).some((w) => w.startsWith(q))) return 2;
    return uid.includes(q) || name.includes(q) ? 1 : 0;
  };
  return all
    .map((m) => [m, score(m)] as const)
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1] || Number(b[0].member) - Number(a[0].member) || a[0].name.localeCompare(b[0].name))
    .slice(0, max)
    .map(([m]) => m);
}

/** The text with the mention at start..caret replaced by "@uid ", and the caret after it. */
export function insertMention(text: string, start: number, caret: number, uid: string): { text: string; caret: number } {
  const insert = `@${uid} `;
  const rest = text.slice(caret).replace(/^[A-Za-z0-9_-]*/, "").replace(/^ /, "");
  return { text: text.slice(0, start) + insert + rest, caret: start + insert.length };
}

/** The agents the text mentions that are not members (they will not answer). */
export function absentAgents(text: string, all: readonly Mentionable[]): Mentionable[] {
  const uids = new Set([...text.matchAll(/<@uid:([A-Za-z0-9_-]{1,64})>|(?:^|[^A-Za-z0-9_<-])@([A-Za-z0-9_-]{1,64})/g)].map((m) => m[1] ?? m[2]));
  return all.filter((m) => m.agent && !m.member && uids.has(m.uid));
}
