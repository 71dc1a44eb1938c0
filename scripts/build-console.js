#!/usr/bin/env node
/**
 * Builds the console page (console/ → dist/console/, or the folder given): tsc compiles console/src and the
 * parts of the JS client it imports to browser ES modules, then the page shell and stylesheet are copied
 * beside them. Nothing is fetched; the result is static files the hub serves at /console.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist/console'));
fs.rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'console/tsconfig.json'), '--outDir', out], { stdio: 'inherit' });
for (const name of fs.readdirSync(path.join(root, 'console/public'))) fs.copyFileSync(path.join(root, 'console/public', name), path.join(out, name));
