// A URL per conversation and thread, so a reload, back/forward and a shared link land there:
//   /                      nothing open
//   /group/<guid>          a group          /group/<guid>/thread/<id>   a thread in it
//   /user/<uid>            a one-to-one chat /user/<uid>/thread/<id>
export interface Place {
  kind: "group" | "user";
  id: string;
  thread?: number | undefined;
}

export function pathOf(p: Place | undefined): string {
  if (!p) return "/";
  const base = `/${p.kind}/${encodeURIComponent(p.id)}`;
  return p.thread ? `${base}/thread/${p.thread}` : base;
}

export function parsePath(path: string): Place | undefined {
  const m = /^\/(group|user)\/([^/]+)(?:\/thread\/(\d+))?\/?$/.exec(path);
  if (!m) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(m[2]!);
  } catch {
    return undefined;
  }
  const thread = m[3] ? Number(m[3]) : undefined;
  return { kind: m[1] as Place["kind"], id, ...(thread && Number.isSafeInteger(thread) ? { thread } : {}) };
}
