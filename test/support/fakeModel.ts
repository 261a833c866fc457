/**
 * A small local HTTP server speaking the OpenAI chat-completions protocol (POST /v1/chat/completions, GET /v1/models).
 * `respond` decides each answer from the request's messages; every request is recorded in `calls`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeCall { url: string; auth: string | undefined; model: string; messages: Array<{ role: string; content: string }>; responseFormat: unknown }

export interface FakeModel {
  url: string;
  calls: FakeCall[];
  respond: (call: FakeCall) => string;
  close(): Promise<void>;
}

export async function startFakeModel(respond: (call: FakeCall) => string, modelName = 'tiny-test-model'): Promise<FakeModel> {
  const fake: FakeModel = { url: '', calls: [], respond, close: async () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.end(JSON.stringify({ object: 'list', data: [{ id: modelName, object: 'model', created: 0, owned_by: 'test' }] }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const parsed = JSON.parse(body);
      const call: FakeCall = { url: req.url, auth: req.headers.authorization, model: parsed.model, messages: parsed.messages, responseFormat: parsed.response_format };
      fake.calls.push(call);
      let content: string;
      try {
        content = fake.respond(call);
      } catch (err) {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { message: String(err) } }));
        return;
      }
      res.end(JSON.stringify({
        id: `chatcmpl-${fake.calls.length}`, object: 'chat.completion', created: 0, model: parsed.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
      }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  return fake;
}
