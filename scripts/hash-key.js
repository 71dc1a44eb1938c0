#!/usr/bin/env node
// Prints the SHA-256 hex digest of an API key for HUB_API_KEYS (the hub stores hashes, never keys).
// Usage: npm run hash-key -- <key>     or     echo -n <key> | npm run hash-key
const { createHash, randomBytes } = require('node:crypto');

function main(key) {
  if (!key) {
    key = randomBytes(24).toString('base64url');
    process.stderr.write(`No key given; generated one. Give this key to the client:\n${key}\n`);
  }
  process.stdout.write(`${createHash('sha256').update(key, 'utf8').digest('hex')}\n`);
}

if (process.argv[2] !== undefined) main(process.argv[2]);
else if (process.stdin.isTTY) main('');
else {
  let input = '';
  process.stdin.on('data', (d) => (input += d));
  process.stdin.on('end', () => main(input.replace(/\r?\n$/, '')));
}
