import { describe, expect, it } from 'vitest';
import type { Approval } from './types';
import { relative, repoName, roleWords, rolesWords, waitLine } from './words';

const NOW = new Date(2030, 0, 1, 19, 30, 0).getTime();

describe('human words', () => {
  it('names roles in words', () => {
    expect(roleWords('platform_admin'), 'a role').toBe('Platform admin');
    expect(rolesWords(['task_author', 'repo_maintainer']), 'several').toBe('Task author, Repository maintainer');
    expect(rolesWords([]), 'none').toBe('no role');
  });

  it('says when the agents stopped waiting', () => {
    const waiting = { agents_waiting: 1 } as Approval;
    const gone = { agents_waiting: 0 } as Approval;
    expect(waitLine(waiting, null, NOW), 'an agent still waits: nothing to say').toBeNull();
    expect(waitLine(gone, new Date(2030, 0, 1, 19, 12).getTime(), NOW), 'seen waiting, then gone').toBe(
      'The agent stopped waiting at 19:12; approving covers a retry.',
    );
    expect(waitLine(gone, null, NOW), 'never seen waiting: no claim either way').toBeNull();
  });

  it('says times relative and repositories by name', () => {
    expect(relative(new Date(NOW - 90_000).toISOString(), NOW), 'minutes').toBe('1 min ago');
    expect(relative(new Date(NOW - 3 * 86400_000).toISOString(), NOW), 'days').toBe('3 d ago');
    expect(repoName('/work/shop/'), 'the last part of the path').toBe('shop');
    expect(repoName(null), 'none').toBe('');
  });
});

describe('grants as sentences', () => {
  it('says what a grant allows, how long it has left and how often it was used', async () => {
    const { grantLine, usedWords, leftWords } = await import('./words');
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(grantLine('`npm install left-pad` in shop for this run', '2030-01-01T07:59:30Z', 1, null, now), 'one sentence').toBe(
      'Allows npm install left-pad in shop for this run · 7 h 59 min left · used once',
    );
    expect(usedWords(0, null), 'unused').toBe('not used yet');
    expect(usedWords(2, 5), 'bounded').toBe('used 2 of 5 times');
    expect(leftWords('2029-12-31T23:00:00Z', now), 'past').toBe('expired');
  });
});
