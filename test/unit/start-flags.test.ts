/**
 * One set of Node flags for the hub process: `npm start`, the container's CMD and the benchmark and test
 * hubs (bench/support/spawn-hub.ts) run it the same way, so measured memory and CPU are the product's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { productNodeFlags } from '../../bench/support/spawn-hub';

const ROOT = path.resolve(__dirname, '../..');

test('npm start runs the hub with a small young generation', () => {
  expect(productNodeFlags()).toEqual(['--max-semi-space-size=2']);
});

test("the container's CMD runs node with the same flags as npm start", () => {
  const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  expect(cmd).not.toBeNull();
  expect(JSON.parse(cmd![1])).toEqual(['node', ...productNodeFlags(), 'dist/server/main.js']);
});
