// Agent configurations and their frontend actions (admins: the SDK's agent configuration calls
// with their session). Forms check the server's rules as the admin types (../validate.ts) and
// show the server's errors at the field they name.
import "./admin.css";
import { Chat } from "@agentry/chat-sdk";
import { Avatar } from "@agentry/ui-kit";
import { useCallback, useEffect, useMemo, useState } from "react";
import { errorText } from "../session";
import { ActionsEditor } from "./ActionsEditor";
import { AgentEditor } from "./AgentEditor";

export function AdminPage() {
  const [selected, setSelected] = useState<string | "new" | undefined>();
  const configs = useAgentConfigs(setSelected);
  const { agents, error, loaded, reload } = configs;
  const current = agents.find((a) => a.agentId === selected);
  const agentIds = useMemo(() => agents.map((a) => a.agentId), [agents]);
  return (
    <div className="agentry-web__admin">
      <AgentList configs={configs} selected={selected} onSelect={setSelected} />
      <main className="agentry-web__main agentry-web__admin-main" aria-label="Agent configuration">
        {error ? (
          <p className="agentry-web__error agentry-web__banner" role="alert">
            {error}
          </p>
        ) : null}
        {selected === "new" ? (
          <AgentEditor key="new" takenIds={agentIds} onSaved={(a) => void reload(a.agentId)} onDeleted={() => undefined} />
        ) : current ? (
          <>
            <AgentEditor key={current.agentId} agent={current}
              onSaved={(a) => void reload(a.agentId)} onDeleted={() => { setSelected(undefined); void reload(); }} />
            <ActionsEditor key={`actions-${current.agentId}`} agentId={current.agentId} />
          </>
        ) : loaded ? (
          <div className="agentry-web__empty">
            <h1 className="agentry-web__title">Agents</h1>
            <p className="agentry-web__muted">Choose an agent on the left, or create one.</p>
          </div>
        ) : null}
      </main>
    </div>
  );
}

type AgentConfigs = ReturnType<typeof useAgentConfigs>;

/** The agent configurations, sorted by id; reload(select) chooses that agent (else keeps the choice, or the first). */
function useAgentConfigs(setSelected: (update: (s: string | undefined) => string | undefined) => void) {
  const [agents, setAgents] = useState<Chat.AgentConfig[]>([]);
  // undefined until read, or when it could not be (then no row shows numbers it does not have).
  const [usage, setUsage] = useState<ReadonlyMap<string, Chat.AgentUsage> | undefined>();
  const [usageError, setUsageError] = useState("");
  const [error, setError] = useState("");
  const [loaded, setLoaded] = useState(false);
  const reload = useCallback(async (select?: string) => {
    try {
      // Usage is read with the list, so a saved price shows as a cost at once; the list does not
      // depend on it.
      const [list, report] = await Promise.all([
        Chat.getAgentConfigs(),
        Chat.getAgentUsage().catch((e: unknown) => {
          setUsageError(errorText(e));
          return undefined;
        }),
      ]);
      list.sort((a, b) => a.agentId.localeCompare(b.agentId));
      setAgents(list);
      setUsage(report ? new Map(report.items.map((u) => [u.agentId, u])) : undefined);
      if (report) setUsageError("");
      setError("");
      setSelected((s) => select ?? (s === undefined ? list[0]?.agentId : s));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoaded(true);
    }
  }, [setSelected]);
  useEffect(() => {
    void reload();
  }, [reload]);

  // The list's switches: one request per agent at a time, the list shows the answer.
  const [toggling, setToggling] = useState<ReadonlySet<string>>(new Set());
  const toggle = async (a: Chat.AgentConfig, on: boolean) => {
    const put = (x: Chat.AgentConfig) => setAgents((list) => list.map((y) => (y.agentId === a.agentId ? x : y)));
    setToggling((t) => new Set(t).add(a.agentId));
    put({ ...a, enabled: on });
    try {
      put(await Chat.setAgentEnabled(a.agentId, on));
      setError("");
    } catch (e) {
      put({ ...a, enabled: !on });
      setError(`${a.name || a.agentId} was not ${on ? "enabled" : "disabled"}: ${errorText(e)}`);
    } finally {
      setToggling((t) => new Set([...t].filter((id) => id !== a.agentId)));
    }
  };
  return { agents, usage, usageError, error, loaded, reload, toggling, toggle };
}

function AgentList({ configs, selected, onSelect }: { configs: AgentConfigs; selected: string | undefined; onSelect(id: string): void }) {
  const { agents, usage, usageError, error, loaded, toggling, toggle } = configs;
  return (
    <nav className="agentry-web__sidebar agentry-web__admin-nav" aria-label="Agents">
      <div className="agentry-web__admin-nav-head">
        <h2 className="agentry-web__section-title">Agents</h2>
        <button type="button" className="agentry-web__button agentry-web__button--small" onClick={() => onSelect("new")}>
          New agent
        </button>
      </div>
      <ul className="agentry-web__list">
        {agents.map((a) => (
          <li key={a.agentId} className="agentry-web__admin-agent">
            <button type="button" className="agentry-web__list-item" aria-current={a.agentId === selected ? "true" : undefined}
              onClick={() => onSelect(a.agentId)} data-agent={a.agentId}>
              <Avatar className="agentry-web__avatar" name={a.name || a.agentId} image={a.icon} />
              <span className="agentry-web__list-text">
                <span className="agentry-web__list-title">{a.name || a.agentId}</span>
                {/* On or off is the switch beside the row: the line names the agent's id and provider. */}
                <span className="agentry-web__list-sub">
                  {a.agentId} · {a.provider}
                </span>
              </span>
            </button>
            {/* The on/off switch of the agent list, beside the row (a control inside the row's
                button would be a button in a button). */}
            <input type="checkbox" role="switch" className="agentry-web__switch agentry-web__admin-agent-switch" checked={a.enabled}
              disabled={toggling.has(a.agentId)} aria-label={`${a.name || a.agentId} enabled`} data-agent-switch={a.agentId}
              onChange={(e) => void toggle(a, e.target.checked)} />
            {a.capabilities ? <CapabilityBadges agent={a} capabilities={a.capabilities} /> : null}
            {usage ? <AgentUsageLines agentId={a.agentId} usage={usage.get(a.agentId)} /> : null}
          </li>
        ))}
      </ul>
      {loaded && agents.length === 0 && !error ? <p className="agentry-web__muted agentry-web__section-empty">No agents configured.</p> : null}
      {agents.length > 0 && usage ? <p className="agentry-web__hint agentry-web__admin-usage-note">Today is since 00:00 UTC; 7 days, since 00:00 UTC six days ago.</p> : null}
      {usageError ? <p className="agentry-web__hint agentry-web__admin-usage-note" role="status">Usage could not be read: {usageError}</p> : null}
    </nav>
  );
}

/** What the agent says it supports (its AG-UI capabilities, read when it was added or filled
 * from the agent), as small badges; only what it declares true is shown. */
function CapabilityBadges({ agent, capabilities: c }: { agent: Chat.AgentConfig; capabilities: Chat.AgentCapabilities }) {
  const tools = c.tools?.items?.map((t) => t.name) ?? [];
  const badges: { label: string; title: string }[] = [];
  if (c.transport?.streaming) badges.push({ label: "Streaming", title: c.transport.resumable ? "Streams its answer; a dropped stream resumes" : "Streams its answer" });
  if (tools.length > 0) badges.push({ label: tools.length === 1 ? "1 tool" : `${tools.length} tools`, title: `Its own tools: ${tools.join(", ")}` });
  if (c.tools?.clientProvided) badges.push({ label: "Frontend tools", title: "Accepts tools that run in the person's app (frontend actions)" });
  if (c.humanInTheLoop?.approvals || c.humanInTheLoop?.interrupts) badges.push({ label: "Approvals", title: "Stops for a person's approval before some tool calls" });
  if (c.reasoning?.supported) badges.push({ label: "Reasoning", title: c.reasoning.streaming ? "Streams a reasoning model's thinking, shown folded" : "Shows a reasoning model's thinking" });
  if (badges.length === 0) return null;
  return (
    <ul className="agentry-web__admin-caps" aria-label={`What ${agent.name || agent.agentId} supports`} data-capabilities={agent.agentId}>
      {badges.map((b) => (
        <li key={b.label} className="agentry-web__admin-cap" title={b.title}>
          {b.label}
        </li>
      ))}
    </ul>
  );
}

const noUsage: Chat.UsageTotals = { runs: 0, inputTokens: 0, outputTokens: 0 };

/** An agent's runs, tokens and cost today and over the last 7 days, under its row (beside the
 * row's button, not in it: the button's name stays the agent's). Cost is "—" without prices. */
function AgentUsageLines({ agentId, usage }: { agentId: string; usage: Chat.AgentUsage | undefined }) {
  const priced = usage?.prices !== undefined;
  return (
    <dl className="agentry-web__admin-usage" data-usage={agentId} aria-label={`Usage of ${agentId}`}>
      {([["Today", usage?.today], ["7 days", usage?.last7Days]] as const).map(([label, totals]) => {
        const t = totals ?? noUsage;
        return (
          <div key={label} className="agentry-web__admin-usage-row" data-period={label === "Today" ? "today" : "7d"}>
            <dt>{label}</dt>
            <dd title={`${t.runs} runs, ${t.inputTokens} input and ${t.outputTokens} output tokens`}>
              {t.runs} {t.runs === 1 ? "run" : "runs"} · {tokens(t.inputTokens)} in · {tokens(t.outputTokens)} out
            </dd>
            {/* The cost's own cell, so it lines up on the right; "—" without prices (not $0). */}
            <dd className="agentry-web__admin-cost">{priced && t.cost !== undefined ? money(t.cost) : "—"}</dd>
          </div>
        );
      })}
    </dl>
  );
}

/** Token counts as people read them: 950, 12.3k, 4.1M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** US dollars: cents, or four decimals under a cent so a small cost does not read $0.00. */
export function money(v: number): string {
  if (v > 0 && v < 0.01) return `$${v.toFixed(4)}`;
  return `$${v.toFixed(2)}`;
}
