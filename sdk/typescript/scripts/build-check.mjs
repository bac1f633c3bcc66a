// Fails when dist/ (committed, so that `npm install ./sdk/typescript` needs no build step) is
// not what tsc makes of src/ now. `npm run build` fixes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'assent-sdk-build-'));
try {
  execFileSync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json', '--outDir', dir], { stdio: 'inherit' });
  const fresh = readdirSync(dir).sort();
  const committed = readdirSync('dist').sort();
  const stale =
    fresh.join() !== committed.join() ||
    fresh.some((f) => readFileSync(join(dir, f), 'utf8') !== readFileSync(join('dist', f), 'utf8'));
  if (stale) {
    console.error('sdk/typescript/dist differs from what tsc makes of src/; rebuild: cd sdk/typescript && npm run build');
    process.exit(1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
