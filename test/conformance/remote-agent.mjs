// A remote A2A agent built with the official JavaScript SDK (@a2a-js/sdk 0.3), for the tests that
// have an Agentry agent use another vendor's agent as a tool (remote_agent_test.go). The message
// text picks the behaviour: "hang" never answers, "fail" ends the task failed, "briefly" answers
// in the final status message only, anything else is echoed in a completed task's artifact. Loopback only; prints its URL once it listens.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';

// The card is one object the request handler keeps by reference, so /control/card can change
// what the served card says; url is filled in once the port is known.
const card = {
  name: 'JS SDK remote agent',
  description: 'Echoes what it is told; hangs or fails on request.',
  url: '',
  preferredTransport: 'JSONRPC',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'Says back what it heard.', tags: ['test'] }],
};

// The SDK gives an executor no signal when the caller goes away (a blocking message/send only
// ends when the executor publishes a final event), so a middleware ties each request's
// messageId to an AbortController aborted when the response closes before it was sent.
const requests = new Map(); // messageId -> AbortController
const running = new Map(); // taskId -> AbortController, for tasks/cancel

function watchClient(req, res, next) {
  const id = req.body?.params?.message?.messageId;
  if (typeof id === 'string' && /^message\/(send|stream)$/.test(req.body?.method)) {
    const ac = new AbortController();
    requests.set(id, ac);
    res.on('close', () => {
      requests.delete(id);
      if (!res.writableFinished) ac.abort('the client went away');
    });
  }
  next();
}

const textOf = (msg) => (msg.parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join('');
const agentMessage = (taskId, contextId, text) => ({
  kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId, parts: [{ kind: 'text', text }],
});
const status = (taskId, contextId, state, text) => ({
  kind: 'status-update', taskId, contextId, final: true,
  status: { state, timestamp: new Date().toISOString(), message: text && agentMessage(taskId, contextId, text) },
});

const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = textOf(userMessage);
    console.log(`remote agent: task ${taskId} asked ${JSON.stringify(text)}`);
    // The task exists (working) before anything else, so tasks/get and tasks/cancel find it.
    bus.publish({ kind: 'task', id: taskId, contextId, history: [userMessage], status: { state: 'working', timestamp: new Date().toISOString() } });
    if (text.includes('hang')) {
      const ac = requests.get(userMessage.messageId) ?? new AbortController();
      running.set(taskId, ac);
      // No timer: only the client going away or tasks/cancel ends the wait, and an aborted
      // signal leaves nothing behind that keeps the process alive.
      const reason = await new Promise((resolve) => {
        if (ac.signal.aborted) resolve(ac.signal.reason);
        else ac.signal.addEventListener('abort', () => resolve(ac.signal.reason), { once: true });
      });
      running.delete(taskId);
      console.log(`remote agent: hanging task ${taskId} ended: ${reason}`);
      bus.publish(status(taskId, contextId, 'canceled', `canceled: ${reason}`));
    } else if (text.includes('fail')) {
      bus.publish(status(taskId, contextId, 'failed', 'the remote agent failed on purpose'));
    } else if (text.includes('briefly')) {
      // The protocol lets an agent answer in its final status message, with no artifact.
      bus.publish(status(taskId, contextId, 'completed', `Briefly: ${text}`));
    } else {
      bus.publish({
        kind: 'artifact-update', taskId, contextId, lastChunk: true,
        artifact: { artifactId: randomUUID(), name: 'answer', parts: [{ kind: 'text', text: `Remote agent heard: ${text}` }] },
      });
      bus.publish(status(taskId, contextId, 'completed'));
    }
    bus.finished();
  },
  async cancelTask(taskId) {
    running.get(taskId)?.abort('the task was canceled');
  },
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
const loopback = (req) => ['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(req.socket.remoteAddress);

// Tests change the card with this; the server listens on loopback, and the check says so again.
app.post('/control/card', express.json(), (req, res) => {
  if (!loopback(req)) return res.status(403).json({ error: 'loopback only' });
  const { name, description } = req.body ?? {};
  if (typeof name === 'string') card.name = name;
  if (typeof description === 'string') card.description = description;
  console.log(`remote agent: card now ${JSON.stringify({ name: card.name, description: card.description })}`);
  res.json(card);
});
// JSON-RPC at POST /, the card at /.well-known/agent-card.json.
new A2AExpressApp(handler).setupRoutes(app, '', [watchClient]);

const server = app.listen(0, '127.0.0.1', () => {
  card.url = `http://127.0.0.1:${server.address().port}/`;
  console.log(`remote agent listening on ${card.url}`);
});

// On a signal: end the hanging tasks, stop listening and let the event loop drain; exiting by
// itself shows nothing (timer, socket) was left behind.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    for (const ac of running.values()) ac.abort('the agent is stopping');
    server.close(() => console.log('remote agent: stopped'));
    server.closeAllConnections();
  });
}
