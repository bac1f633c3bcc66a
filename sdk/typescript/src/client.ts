/** The agent's side of the service: submit, wait (long-poll), the event stream. */

import { AssentError, MalformedResponse, ServiceError, Unavailable } from './errors.js';
import {
  type ActionRequest,
  type Approval,
  type Decision,
  type Grant,
  type RunState,
  type StillPending,
  type Submitted,
  checkApproval,
  checkSubmitResponse,
  decisionOf,
  submitted,
} from './results.js';
import { MAX_LINE_BYTES, sseEvents } from './sse.js';

/** Longest single long-poll (seconds); `waitForDecision` repeats it until its deadline. */
export const LONG_POLL_SLICE = 25;
/** Time allowed beyond a long-poll's `wait` for the answer to travel (ms). */
const WAIT_SLACK_MS = 10_000;
const CALL_TIMEOUT_MS = 30_000;
/** With the service's heartbeat every 15 s, this long without a byte means the link is dead. */
export const IDLE_LIMIT_MS = 45_000;
const MAX_BODY_BYTES = 8 << 20;

/** One event of the agent's stream; `id` is the persisted id to resume after. */
export interface AgentEvent {
  id: number;
  at: string;
  type: string;
  approval: Approval | null;
  grant: Grant | null;
  run: RunState | null;
  /** For `approval.settled`: the decision as a value. */
  decision: Decision | StillPending | null;
  raw: Record<string, unknown>;
}

export interface ClientOptions {
  url: string;
  /** The agent's token (the service's `requester.token`, or one from `assent agents add`). */
  token: string;
  fetch?: typeof fetch;
}

export interface EventsOptions {
  lastEventId?: number | null;
  signal?: AbortSignal;
  maxLineBytes?: number;
  /** Reconnect (with backoff) after a dropped connection; default true. */
  reconnect?: boolean;
  /** Called with each dropped connection's reason before reconnecting. */
  onDisconnect?: (reason: string) => void;
}

export class Client {
  private readonly base: string;
  private readonly token: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options.token || /[\r\n]/.test(options.token)) throw new TypeError('the token is empty or spans lines');
    this.base = options.url.replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** `POST /v1/actions`. With `idempotencyKey` a retry answers the first answer (the same
   * approval), never a second prompt; the key reused with another request throws a
   * `ServiceError` with code `unprocessable`. */
  async submit(request: ActionRequest, options: { idempotencyKey?: string } = {}): Promise<Submitted> {
    const body: ActionRequest = options.idempotencyKey === undefined ? request : { ...request, idempotency_key: options.idempotencyKey };
    const answer = await this.call('POST', '/v1/actions', body, CALL_TIMEOUT_MS);
    return submitted(checkSubmitResponse(answer, 'POST /v1/actions'));
  }

  /** `GET /v1/approvals/{id}?wait=S`: the decision, or `still_pending` when nothing was decided
   * within `waitSeconds` (0: answer at once, for a loop that cannot block). */
  async decision(approvalId: string, options: { waitSeconds?: number } = {}): Promise<Decision | StillPending> {
    const wait = Math.max(0, Math.min(Math.floor(options.waitSeconds ?? 0), 300));
    const path = `/v1/approvals/${encodeURIComponent(approvalId)}?wait=${wait}`;
    const answer = await this.call('GET', path, undefined, wait * 1000 + WAIT_SLACK_MS);
    return decisionOf(checkApproval(answer, `GET ${path}`));
  }

  /** Long-polls (slices of at most 25 s) until decided or `timeoutMs` passes; then
   * `still_pending`. Resumable: call it again with the same id, here or in another process. */
  async waitForDecision(approvalId: string, options: { timeoutMs: number }): Promise<Decision | StillPending> {
    const until = Date.now() + options.timeoutMs;
    for (;;) {
      const left = until - Date.now();
      const wait = Math.max(0, Math.min(Math.floor((left - 1000) / 1000), LONG_POLL_SLICE));
      const answer = await this.decision(approvalId, { waitSeconds: wait });
      if (answer.kind !== 'still_pending' || Date.now() >= until) return answer;
      if (wait === 0) await new Promise((r) => setTimeout(r, Math.min(200, Math.max(0, until - Date.now()))));
    }
  }

  /** `GET /v1/runs/{id}`: whether the run goes on, or is paused/cancelled by a timeout. */
  async run(runId: string): Promise<RunState> {
    const path = `/v1/runs/${encodeURIComponent(runId)}`;
    const answer = (await this.call('GET', path, undefined, CALL_TIMEOUT_MS)) as Partial<RunState> | null;
    if (typeof answer !== 'object' || answer === null || typeof answer.run_id !== 'string' || typeof answer.status !== 'string') {
      throw new MalformedResponse(`GET ${path}: not a RunState (run_id, status)`);
    }
    return answer as RunState;
  }

  /** `GET /v1/events`: this agent's own events, for ever (until `signal` aborts), resuming
   * after `lastEventId` and after every dropped connection. Errors of the service's answers
   * (a refused token, a malformed event, a line past `maxLineBytes`) throw. */
  async *events(options: EventsOptions = {}): AsyncGenerator<AgentEvent> {
    let lastId = options.lastEventId ?? null;
    const maxLine = options.maxLineBytes ?? MAX_LINE_BYTES;
    let backoff = 250;
    while (!options.signal?.aborted) {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      options.signal?.addEventListener('abort', onAbort);
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        clearTimeout(idle);
        idle = setTimeout(() => controller.abort(), IDLE_LIMIT_MS);
      };
      let reason = 'the service closed the stream';
      try {
        const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' };
        if (lastId !== null) headers['last-event-id'] = String(lastId);
        touch();
        let response: Response;
        try {
          response = await this.fetchImpl(`${this.base}/v1/events`, { headers, signal: controller.signal });
        } catch (err) {
          throw new Unavailable(`cannot reach the service: ${describe(err)}`);
        }
        if (response.status !== 200) throw await errorOf(response);
        if (!response.body) throw new MalformedResponse('an event stream without a body');
        backoff = 250;
        const body = response.body;
        const chunks = (async function* () {
          const reader = body.getReader();
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              touch();
              yield value;
            }
          } finally {
            reader.releaseLock();
          }
        })();
        for await (const sse of sseEvents(chunks, maxLine)) {
          const event = envelope(sse.data);
          lastId = event.id;
          yield event;
        }
      } catch (err) {
        if (err instanceof ServiceError || err instanceof MalformedResponse) throw err;
        if (options.signal?.aborted) return;
        if (options.reconnect === false) throw err instanceof AssentError ? err : new AssentError(`the event stream dropped: ${describe(err)}`);
        reason = describe(err);
      } finally {
        clearTimeout(idle);
        options.signal?.removeEventListener('abort', onAbort);
        controller.abort();
      }
      if (options.signal?.aborted) return;
      if (options.reconnect === false) return;
      options.onDisconnect?.(reason);
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 10_000);
    }
  }

  private async call(method: string, path: string, body: unknown, timeoutMs: number): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new Unavailable(`cannot reach the service: ${describe(err)}`);
    }
    if (!response.ok) throw await errorOf(response);
    const text = await boundedText(response);
    try {
      return JSON.parse(text);
    } catch {
      throw new MalformedResponse(`${method} ${path}: the answer is not JSON (${snippet(text)})`);
    }
  }
}

/** Parses one event's `data:` (an EventEnvelope) into an `AgentEvent`. */
export function envelope(text: string): AgentEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new MalformedResponse(`an event that is not JSON (${snippet(text)})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new MalformedResponse('an event that is not a JSON object');
  const r = raw as Record<string, unknown>;
  for (const field of ['id', 'type', 'at']) {
    if (!(field in r)) throw new MalformedResponse(`an event without its '${field}' field`);
  }
  if (!Number.isInteger(r.id) || typeof r.type !== 'string' || typeof r.at !== 'string') {
    throw new MalformedResponse('an event whose id is not an integer, or type or at not a string');
  }
  const approval = 'approval' in r ? checkApproval(r.approval, `event ${r.type}`) : null;
  const grant = 'grant' in r ? (r.grant as Grant) : null;
  const run = 'run' in r ? (r.run as RunState) : null;
  const decision = r.type === 'approval.settled' && approval ? decisionOf(approval) : null;
  return { id: r.id as number, at: r.at, type: r.type, approval, grant, run, decision, raw: r };
}

/** The body as text, refusing (without reading on) one past MAX_BODY_BYTES. */
async function boundedText(response: Response): Promise<string> {
  const tooBig = () => new MalformedResponse(`an answer larger than ${MAX_BODY_BYTES} bytes`);
  if (Number(response.headers.get('content-length') ?? '0') > MAX_BODY_BYTES) {
    await response.body?.cancel();
    throw tooBig();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw tooBig();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

async function errorOf(response: Response): Promise<ServiceError | MalformedResponse> {
  const text = await boundedText(response).catch(() => '');
  try {
    const detail = (JSON.parse(text) as { error: { code: unknown; message: unknown } }).error;
    if (typeof detail.code === 'string' && typeof detail.message === 'string') {
      return new ServiceError(response.status, detail.code, detail.message);
    }
  } catch {
    // falls through
  }
  return new MalformedResponse(`the service answered ${response.status} without an error body (${snippet(text)})`);
}

function snippet(text: string): string {
  return JSON.stringify(text.slice(0, 120)) + (text.length > 120 ? '…' : '');
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
