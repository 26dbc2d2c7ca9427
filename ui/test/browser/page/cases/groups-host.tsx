// ChatGroups on a host page with its own heavy-handed element styles (li, ul, button, h2, input,
// svg, img, div): the kit's CSS must leave the host's elements alone, and the kit's rows must
// look the same as on a plain page.
import { Chat } from "@agentry/chat-sdk";
import { ChatGroups } from "@agentry/ui-kit";
import { defineCase, record } from "../case";

const HOST_CSS = `
  ul { margin: 30px; padding-left: 60px; list-style: square; }
  li { color: rgb(255, 0, 0); padding: 30px; font-size: 22px; line-height: 3; list-style: square; background: rgb(255, 240, 240); }
  button { background: rgb(255, 255, 0); border: 4px solid rgb(0, 128, 0); padding: 20px; font-size: 30px; border-radius: 0; text-transform: uppercase; }
  h2 { font-size: 48px; color: rgb(0, 0, 255); margin: 40px; text-decoration: underline; }
  input { padding: 20px; font-size: 24px; border: 3px dashed rgb(255, 0, 255); background: rgb(200, 255, 200); }
  svg { fill: rgb(255, 0, 0); width: 50px; height: 50px; }
  img { border: 5px solid rgb(255, 0, 0); padding: 5px; }
  span { letter-spacing: 3px; }
`;

export default defineCase(async ({ host, token }) => {
  await Chat.init("test", { host });
  await Chat.login(token!);
  return (
    <div style={{ display: "flex", height: "100%" }}>
      <style>{HOST_CSS}</style>
      <div className="case-groups" style={{ width: 380, height: "100%", flex: "none" }}>
        <ChatGroups
          onItemClick={record("onItemClick", (g: Chat.Group) => [g.getGuid()])}
          options={(g) => [{ id: "leave", title: "Leave", onClick: () => record("onOption")("leave", g.getGuid()) }]}
        />
      </div>
      <section className="host-content" aria-label="Host content" style={{ padding: 16 }}>
        <h2 id="host-title">Host heading</h2>
        <ul id="host-list">
          <li>Host item one</li>
          <li>Host item two</li>
        </ul>
        <button id="host-button" type="button">
          Host button
        </button>
      </section>
    </div>
  );
});
