/**
 * The embedded knowledge engine the in-process source uses (knowledge-layer.md §6.4): by default it loads the
 * bundled demo folder, and a checkout without that folder starts with an empty store and says so once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../../server/config';
import { createKnowledgeService } from '../../../../server/knowledge/service';
import { createLogger } from '../../../../server/logger';

describe('knowledge engine content default', () => {
  test('KNOWLEDGE_CONTENT unset: the demo folder; none: nothing', () => {
    const root = '/srv/hub';
    expect(loadConfig({}, root).knowledge).toMatchObject({ contentPaths: [path.join(root, 'data/knowledge/demo')], contentIsDefault: true });
    expect(loadConfig({ KNOWLEDGE_CONTENT: 'none' }, root).knowledge).toMatchObject({ contentPaths: [], contentIsDefault: false });
    expect(loadConfig({ KNOWLEDGE_CONTENT: 'a,b' }, root).knowledge).toMatchObject({ contentPaths: [path.join(root, 'a'), path.join(root, 'b')], contentIsDefault: false });
  });

  test('a missing default demo folder is reported and the engine opens empty; a missing set path stops start-up', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mah-kb-root-'));
    try {
      const lines: string[] = [];
      const logger = createLogger('info', { write: (l: string) => void lines.push(l) });
      const service = await createKnowledgeService(loadConfig({ KNOWLEDGE_DB_PATH: ':memory:' }, root).knowledge, { logger, maxBodyBytes: 1 << 20 });
      expect(service.loaded).toBeNull();
      expect((await service.store.counts()).mkus).toBe(0);
      await service.close();
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
      expect(warnings.map((w) => w.msg)).toEqual(['bundled demo knowledge base not found: the knowledge store starts without it (set KNOWLEDGE_CONTENT)']);
      await expect(createKnowledgeService(loadConfig({ KNOWLEDGE_DB_PATH: ':memory:', KNOWLEDGE_CONTENT: 'missing' }, root).knowledge, { logger, maxBodyBytes: 1 << 20 })).rejects.toThrow(/no such file or folder/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
