/**
 * The client conformance suite (PROTOCOL.md): every case of cases.json runs through the JS client (in
 * process) and the Java client (`java -jar clients/java/target/conformance.jar`, built here with Maven
 * offline) against a live hub on the fake router, and each observation is checked against the case's
 * `expect`, then the state after it (router slots, request counts).
 *
 * The Java half is skipped only when clients/java/pom.xml does not exist or `java`/`mvn` are not on PATH
 * (a user's machine); CI has both, so there it always runs.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConformanceCase, Observation } from './case';
import { startCaseWorld, type CaseWorld } from './world';
import { runCase } from '../js/conformance-runner';
import { traceLines, useRouterAndHub } from '../../test/support/hub';
import { readmeExample, runProcess } from '../../test/support/run-process';

const ROOT = path.resolve(__dirname, '../..');
const CASES: ConformanceCase[] = JSON.parse(fs.readFileSync(path.join(__dirname, 'cases.json'), 'utf8'));
const POM = path.join(ROOT, 'clients/java/pom.xml');
const JAR = path.join(ROOT, 'clients/java/target/conformance.jar');

function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Why the Java half cannot run here, or null when it runs. */
function javaSkipReason(): string | null {
  if (!fs.existsSync(POM)) return `clients/java/pom.xml does not exist in this checkout`;
  const missing = ['java', 'mvn'].filter((c) => !onPath(c));
  return missing.length > 0 ? `${missing.join(' and ')} not on PATH` : null;
}

const JAVA_SKIP = javaSkipReason();
if (JAVA_SKIP) console.warn(`conformance: the Java client's half is skipped: ${JAVA_SKIP}`);

function buildJavaRunner(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('mvn', ['-o', '-q', '-f', POM, 'package'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`mvn -o -q package failed:\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

/** An observation, and (Java) how to let the runner go once the state after the case was checked. */
interface Ran {
  observation: Observation;
  release?: () => Promise<void>;
}

/**
 * One case through the Java runner: the case as one line of JSON on stdin, exactly one line of JSON back on
 * stdout. The runner stays alive until stdin ends, so the state after the case is checked while its JVM and
 * HTTP client still exist (a socket the client forgot to close would still hold the router slot).
 */
function runJavaCase(hubUrl: string, testCase: ConformanceCase): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the hub answering the runner lives in this process.
    const child = spawn('java', ['-jar', JAR, hubUrl], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let observed = false;
    const exited = new Promise<number | null>((done) => child.on('close', done));
    const release = async (): Promise<void> => {
      child.stdin.end();
      const code = await exited;
      const lines = stdout.split('\n').filter((l) => l.trim() !== '');
      if (code !== 0 || lines.length !== 1) throw new Error(`Java runner exited ${code} with ${lines.length} stdout line(s):\n${stdout}\n${stderr}`);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const end = stdout.indexOf('\n');
      if (observed || end < 0) return;
      observed = true;
      try {
        resolve({ observation: JSON.parse(stdout.slice(0, end)) as Observation, release });
      } catch {
        reject(new Error(`Java runner printed no JSON: ${stdout.slice(0, end)}`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', reject);
    void exited.then((code) => {
      if (!observed) reject(new Error(`Java runner exited ${code} before an observation:\n${stdout}\n${stderr}`));
    });
    child.stdin.write(`${JSON.stringify(testCase)}\n`);
  });
}

async function runJsCase(hubUrl: string, testCase: ConformanceCase): Promise<Ran> {
  return { observation: await runCase(hubUrl, testCase) };
}

/** Polls hub state; the bound only turns a hang into a failure. */
async function until(condition: () => boolean, what: string, boundMs = 10_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`conformance: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function hubModelIds(world: CaseWorld, testCase: ConformanceCase): Promise<string[]> {
  const headers: Record<string, string> = testCase.client?.apiKey ? { authorization: `Bearer ${testCase.client.apiKey}` } : {};
  const res = await fetch(`${world.hub.url}/v1/models`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
}

/** The observation against `expect`, then the state the case names. */
async function check(world: CaseWorld, testCase: ConformanceCase, observation: Observation): Promise<void> {
  expect(observation).toMatchObject(testCase.expect);
  const after = testCase.after ?? {};
  if (after.routerIdle) {
    // The turn ends only when the hub saw the client go (its In-Depth call is held for minutes):
    // then no router request may stay open and no slot stay taken.
    await until(() => world.hub.activeTurns() === 0, 'the hub still runs the turn the client left');
    await world.router.waitIdle();
    expect(world.router.openChats).toBe(0);
    expect(world.hub.routerSlots().inFlight).toBe(0);
  }
  if (after.outcome !== undefined) {
    const lines = await traceLines(world.hub);
    expect(lines.at(-1)?.outcome?.status).toBe(after.outcome);
  }
  if (after.routerChats !== undefined) expect(world.router.chatRequests()).toHaveLength(after.routerChats);
  if (after.answerContains !== undefined) expect((observation as { answer?: string }).answer).toContain(after.answerContains);
  if (after.modelsMatchHub) {
    const ids = await hubModelIds(world, testCase);
    expect(ids.length).toBeGreaterThan(0);
    expect((observation as { models?: string[] }).models).toEqual(ids);
  }
}

type Runner = (hubUrl: string, testCase: ConformanceCase) => Promise<Ran>;

const RUNNERS: Array<{ client: string; run: Runner; skip: boolean }> = [
  { client: 'js', run: runJsCase, skip: false },
  { client: 'java', run: runJavaCase, skip: JAVA_SKIP !== null },
];

if (!JAVA_SKIP) {
  beforeAll(async () => {
    await buildJavaRunner();
    expect(fs.existsSync(JAR)).toBe(true);
  }, 600_000);
}

test('cases.json holds unique, complete cases', () => {
  const names = CASES.map((c) => c.name);
  expect(new Set(names).size).toBe(names.length);
  for (const c of CASES) {
    expect(Object.keys(c.expect).length).toBeGreaterThan(0);
    expect(['models', 'ask', 'stream', 'abort']).toContain(c.op.kind);
  }
});

describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, testCase) => {
  let world: CaseWorld;
  beforeAll(async () => {
    world = await startCaseWorld(testCase);
  });
  afterAll(async () => {
    await world?.close();
  });

  for (const { client, run, skip } of RUNNERS) {
    (skip ? test.skip : test)(client, async () => {
      world.prepare();
      const { observation, release } = await run(world.hub.url, testCase);
      try {
        await check(world, testCase, observation);
      } finally {
        await release?.();
      }
    }, 60_000);
  }
});

describe("the Java client's README example", () => {
  const ctx = useRouterAndHub({ env: { HUB_ANCHOR: '2026-03-10' } });
  const ANSWER = 'Weight decreased from 74 kg on 2026-01-10 [2] to 71 kg on 2026-03-02 [1].';

  (JAVA_SKIP ? test.skip : test)('runs as written against a live hub (java source launcher, the built library jar)', async () => {
    ctx.router.script(
      { match: { contains: 'DIRECT ANSWER' }, content: JSON.stringify({ claims: ['The most recent weight is 71 kg [1].'] }) },
      { content: JSON.stringify({ answer: ANSWER, citations: [2, 1], blocks: [] }) },
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-java-example-'));
    try {
      fs.writeFileSync(path.join(dir, 'Example.java'), readmeExample(path.join(ROOT, 'clients/java/README.md'), 'java'));
      const jar = path.join(ROOT, 'clients/java/target/med-agent-hub-client-0.1.0.jar');
      const { code, stdout, stderr } = await runProcess('java', ['-cp', jar, path.join(dir, 'Example.java')], { env: { HUB_URL: ctx.hub.url } });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout.split('\n')).toContain(`answer_done: ${ANSWER}`);
      expect(stdout).toContain(`${ANSWER} cites [2, 1]`);
      // The stream it left after answer_done freed its router slot.
      await until(() => ctx.hub.activeTurns() === 0, 'the hub still runs a turn the example left');
      await ctx.router.waitIdle();
      expect(ctx.router.openChats).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
