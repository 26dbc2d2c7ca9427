// ChatMessageList on a host page with heavy-handed element styles and host elements that use
// the kit's own class names outside the list: the kit's CSS must leave them alone.
import { Chat } from "@agentry/chat-sdk";
import { ChatMessageList } from "@agentry/ui-kit";
import { defineCase } from "../case";

const HOST_CSS = `
  p { margin: 40px; color: rgb(0, 0, 255); font-size: 20px; }
  button { background: rgb(255, 255, 0); border: 4px solid rgb(0, 128, 0); padding: 20px; font-size: 30px; }
  article { padding: 25px; background: rgb(255, 240, 240); }
  time { color: rgb(255, 0, 0); }
`;

export default defineCase(async ({ host, token, params }) => {
  await Chat.init("test", { host });
  await Chat.login(token!);
  const user = await Chat.getUser(String(params.user));
  return (
    <div style={{ display: "flex", height: "100%" }}>
      <style>{HOST_CSS}</style>
      <div style={{ width: 520, height: "100%", flex: "none" }}>
        <ChatMessageList user={user} />
      </div>
      <section aria-label="Host content" style={{ flex: 1 }}>
        <p id="host-p">Host paragraph</p>
        <button id="host-button" type="button">Host button</button>
        <article id="host-article">Host article</article>
        <div id="host-bubble" className="chat-message-bubble chat-message-bubble-outgoing">
          <div className="chat-message-bubble__body">
            <p className="chat-text-bubble__text">Not a kit bubble</p>
            <div className="chat-message-bubble__status-info-view"><time className="chat-date">12:00</time></div>
          </div>
        </div>
      </section>
    </div>
  );
});
