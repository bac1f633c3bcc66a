// Fails when src/api.gen.ts is not what openapi-typescript makes of ui/openapi.json (the service's
// OpenAPI document): the SDK's types must never drift from the wire. `npm run gen` fixes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'assent-gen-'));
try {
  const fresh = join(dir, 'api.gen.ts');
  execFileSync('npx', ['--no-install', 'openapi-typescript', '../../ui/openapi.json', '-o', fresh, '--silent'], {
    stdio: 'inherit',
  });
  if (readFileSync(fresh, 'utf8') !== readFileSync('src/api.gen.ts', 'utf8')) {
    console.error(
      'sdk/typescript/src/api.gen.ts differs from what openapi-typescript makes of ui/openapi.json; regenerate: cd sdk/typescript && npm run gen',
    );
    process.exit(1);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
