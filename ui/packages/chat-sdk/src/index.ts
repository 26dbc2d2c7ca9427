/**
 * @agentry/chat-sdk: the client of Agentry's chat service (REST + one WebSocket with resume).
 *
 *   import { Chat } from "@agentry/chat-sdk";
 *   await Chat.init("my-app", { host: "http://127.0.0.1:4111" });
 *   await Chat.login("alice", authKey);
 *   Chat.addMessageListener("list", new Chat.MessageListener({ onTextMessageReceived: (m) => … }));
 *   await Chat.sendMessage(new Chat.TextMessage("bob", "Hi", Chat.RECEIVER_TYPE.USER));
 *
 * The contract is docs/chat-sdk.md. Everything in the namespace is also a named export.
 */
export * as Chat from "./chat";
export * from "./chat";
