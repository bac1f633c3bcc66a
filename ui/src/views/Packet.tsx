import { useState } from 'preact/hooks';
import { visible } from '../text';
import { diffLines, fileCounts, prTarget, pushCommitsLine, pushDropsLine, shownLines, stateLabel } from '../packets';
import type { DiffPacket, PrPacket, PromptWords } from '../types';

/** A diff approval's packet: files with +/−, flags in words (the service's, as the
 * notification says them), notes, the diff itself. */
export function DiffView({ packet, words }: { packet: DiffPacket; words: PromptWords | undefined }) {
  const [expanded, setExpanded] = useState(false);
  const lines = diffLines(packet.diff);
  const { shown, hidden } = shownLines(lines, expanded);
  return (
    <section class="packet" data-testid="ev-diff">
      {packet.flags.length > 0 && (
        <div class="chips" data-testid="ev-flags">
          {packet.flags.map((f, i) => (
            <span key={f} class="chip" data-flag={f}>
              {visible(words?.flags[i] ?? f)}
            </span>
          ))}
        </div>
      )}
      <table class="files">
        <tbody data-testid="ev-files">
          {packet.files.map((file) => (
            <tr key={file.path} data-testid="ev-file">
              <td class="path">{visible(file.path)}</td>
              <td class="change">{file.change}</td>
              <td class={file.binary ? 'counts' : 'counts text'}>{fileCounts(file)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="sub">
        {packet.files.length} {packet.files.length === 1 ? 'file' : 'files'}, +{packet.lines_added} −{packet.lines_removed}
        {packet.base_sha ? ` · base ${packet.base_sha.slice(0, 12)}` : ''}
      </div>
      {packet.notes.length > 0 && (
        <ul class="notes" data-testid="ev-notes">
          {packet.notes.map((n, i) => (
            <li key={i}>{visible(n)}</li>
          ))}
        </ul>
      )}
      {lines.length > 0 && (
        <pre class="diff" data-testid="ev-diff-text">
          {shown.map((line, i) => (
            <div key={i} class={`dl ${line.kind}`}>
              {line.text || ' '}
            </div>
          ))}
        </pre>
      )}
      {hidden > 0 && (
        <button class="more" data-testid="ev-diff-more" onClick={() => setExpanded(true)}>
          Show all {lines.length} lines ({hidden} more)
        </button>
      )}
      {packet.diff_truncated && <p class="warn">The diff was cut at the service's limit.</p>}
    </section>
  );
}

/** A PR approval's packet: where it goes, and each diff approval it depends on. A push is
 * named by the service's headline ("Force-push main (the default branch) to origin"), the
 * notification's question. */
export function PrView({ packet, words }: { packet: PrPacket; words: PromptWords | undefined }) {
  const target = prTarget(packet);
  const push = packet.push ? (words?.headline ?? null) : null;
  const drops = pushDropsLine(packet);
  const commits = packet.push?.commits?.commits ?? [];
  return (
    <section class="packet" data-testid="ev-pr">
      <dl>
        {push && (
          <>
            <dt>Push</dt>
            <dd data-testid="ev-push" class={packet.push?.force ? 'warn' : undefined}>
              {visible(push)}
            </dd>
          </>
        )}
        {drops && (
          <>
            <dt>Force</dt>
            <dd data-testid="ev-push-drops" class="warn">
              {visible(drops)}
            </dd>
          </>
        )}
        {packet.push && (
          <>
            <dt>Commits</dt>
            <dd data-testid="ev-push-count">{visible(pushCommitsLine(packet) ?? '')}</dd>
          </>
        )}
        {target && (
          <>
            <dt>Publishes to</dt>
            <dd data-testid="ev-pr-target">{visible(target)}</dd>
          </>
        )}
        {packet.title && (
          <>
            <dt>Title</dt>
            <dd data-testid="ev-pr-title">{visible(packet.title)}</dd>
          </>
        )}
      </dl>
      {commits.length > 0 && (
        <ul class="commits" data-testid="ev-push-commits">
          {commits.map((c) => (
            <li key={c.sha}>
              <code>{visible(c.sha)}</code> {visible(c.subject)}
            </li>
          ))}
        </ul>
      )}
      <h3>Diff approvals of this run</h3>
      {packet.diff_approvals.length === 0 && <p class="empty">None: the run changed nothing that needs a diff review.</p>}
      <ul class="diff-approvals" data-testid="ev-pr-diffs">
        {packet.diff_approvals.map((d) => (
          <li key={d.approval_id} data-state={d.state}>
            <span class={`state ${d.state}`}>{stateLabel(d.state)}</span> {visible(d.summary)}
            {d.reason && <div class="sub">{visible(d.reason)}</div>}
          </li>
        ))}
      </ul>
    </section>
  );
}
