// @vitest-environment happy-dom
// The window's calls as the desk receives them: one `desk_call` command whose `call` is a
// `WindowCall` (ipc.gen.ts, generated from the Rust type the window parses). The Rust test
// `link::tests::calls_keep_the_page_command_names_and_arguments` parses the same shapes.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { DeskApi } from './api';

const sent: { cmd: string; args: unknown }[] = [];
let api: DeskApi;

beforeAll(async () => {
  // The Tauri window's bridge, before api.ts decides which shell it runs in.
  (window as unknown as { __TAURI_INTERNALS__: unknown }).__TAURI_INTERNALS__ = {
    invoke: vi.fn(async (cmd: string, args: unknown) => {
      sent.push({ cmd, args });
      return null;
    }),
    transformCallback: () => 0,
  };
  ({ api } = await import('./api'));
});

const last = () => sent[sent.length - 1];

describe('the window api', () => {
  it('sends every call as one WindowCall, arguments under their Rust names', async () => {
    await api.decide('ap-1', { decision: 'deny', reason: 'no' } as never);
    expect(last(), 'the decision goes to the one command, in the shape the desk parses').toEqual({
      cmd: 'desk_call',
      args: { call: { command: 'approval_decide', args: { approval_id: 'ap-1', decision: { decision: 'deny', reason: 'no' } } } },
    });
    await api.snapshot();
    expect(last(), 'a call without arguments carries none').toEqual({ cmd: 'desk_call', args: { call: { command: 'desk_snapshot' } } });
    await api.audit(null);
    expect(last()?.args, 'no run: null, not absent (the desk reads Option)').toEqual({ call: { command: 'audit_list', args: { run_id: null } } });
    await api.insights(new Date(Date.UTC(2030, 0, 1)));
    expect(last()?.args, 'an instant as RFC 3339').toEqual({ call: { command: 'insights_get', args: { since: '2030-01-01T00:00:00.000Z' } } });
    await api.pause('half_hour');
    expect(last()?.args).toEqual({ call: { command: 'pause_set', args: { choice: 'half_hour' } } });
  });

  it('closes the window with its own command, which never reaches the desk', async () => {
    await api.closeWindow();
    expect(last(), 'window_close is the window process’s own').toEqual({ cmd: 'window_close', args: {} });
  });
});
