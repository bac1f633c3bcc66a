// Hostile or broken answers (a stand-in server on loopback) end in clear errors, never in a
// wrong value or an unbounded read.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { Client, MalformedResponse } from 'assent-sdk';

import { shell } from './service.mjs';

async function canned(status, body, contentType = 'application/json') {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

async function expectMalformed(server, run, says) {
  try {
    await assert.rejects(run(new Client({ url: server.url, token: 't' })), (err) => {
      assert.ok(err instanceof MalformedResponse, `a MalformedResponse, not ${err}`);
      assert.ok(err.message.includes(says), `the error says what was wrong: ${err.message}`);
      return true;
    });
  } finally {
    await server.close();
  }
}

const pendingWithoutId = '{"action_id":"a","action_hash":"h","decision":"ask","risk":"low","reasons":[],"rule":"r","status":"pending"}';
const unknownStatus = pendingWithoutId.replace('"pending"', '"maybe"');

for (const [body, says] of [
  ['<html>hello</html>', 'not JSON'],
  ['{"status":"allowed"}', 'not a SubmitResponse'],
  [pendingWithoutId, 'without an approval_id'],
  [unknownStatus, 'not a SubmitResponse'],
]) {
  test(`a malformed submission answer is a clear error: ${body.slice(0, 30)}`, async () => {
    await expectMalformed(await canned(200, body), (c) => c.submit(shell('r', 'npm test')), says);
  });
}

test('an error status without an error body is a clear error', async () => {
  await expectMalformed(await canned(502, '<h1>Bad Gateway</h1>', 'text/html'), (c) => c.decision('appr-1'), '502 without an error body');
});

test('a huge event line is refused, not buffered', async () => {
  const huge = `data: ${'x'.repeat(3 << 20)}\n\n`;
  await expectMalformed(await canned(200, huge, 'text/event-stream'), (c) => c.events().next(), 'longer than 1048576 bytes');
});

for (const [data, says] of [
  ['data: {not json\n\n', 'not JSON'],
  ['data: {"type":"approval.settled","at":"2026-01-01T00:00:00Z"}\n\n', "without its 'id'"],
  ['data: {"id":1,"type":"approval.settled","at":"2026-01-01T00:00:00Z","approval":{"approval_id":"a"}}\n\n', 'not an Approval'],
]) {
  test(`a malformed event is a clear error: ${says}`, async () => {
    await expectMalformed(await canned(200, data, 'text/event-stream'), (c) => c.events().next(), says);
  });
}

test('an endless answer is refused past the bound', async () => {
  const body = `[${'0,'.repeat(5 << 20)}0]`;
  await expectMalformed(await canned(200, body), (c) => c.decision('appr-1'), 'larger than 8388608 bytes');
});
