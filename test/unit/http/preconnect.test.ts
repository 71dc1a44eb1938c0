/** Which requests open the model backend's connection ahead of their first model call (http/preconnect.ts). */
import { QUERY_PROFILES_PATH as CATALYST, RAW_GENERATE_PATH as RAW } from '../../../server/catalyst';
import { callsModel } from '../../../server/http/preconnect';

test.each([
  ['POST', '/v1/chat/completions', true],
  ['POST', RAW, true],
  ['POST', `${CATALYST}/catalyst-query-gemma-4-12b/roles/query_generate/generate`, true],
  ['POST', `${CATALYST}/catalyst-query-gemma-4-12b/roles/query_generate/warm`, true],
  ['GET', `${CATALYST}`, false],
  ['POST', CATALYST, false],
  ['GET', '/v1/chat/completions', false],
  ['GET', '/health', false],
  ['POST', '/v1/models', false],
  ['POST', '/v2/context', false],
  ['POST', '/v1/chat/completionsx', false],
])('%s %s → %s', (method, path, expected) => {
  expect(callsModel(method, path)).toBe(expected);
});
