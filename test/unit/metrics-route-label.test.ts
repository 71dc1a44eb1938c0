import { routeLabel } from '../../server/metrics';

describe('routeLabel', () => {
  test.each<[string, string]>([
    ['/v1/chat/completions', '/v1/chat/completions'],
    ['/v1/hub/generate', '/v1/hub/generate'],
    ['/v2/retrieve/stream', '/v2/retrieve/stream'],
    ['/v1/hub/query-profiles', '/v1/hub/query-profiles'],
    ['/v1/hub/query-profiles/catalyst-query-gemma-4-12b/roles/query_generate/generate', '/v1/hub/query-profiles/{profile}/roles/{role}/generate'],
    ['/v1/hub/query-profiles/p/roles/query_review/warm', '/v1/hub/query-profiles/{profile}/roles/{role}/warm'],
    ['/v1/hub/query-profiles/p/roles/r/other', 'other'],
    ['/v1/hub/query-profiles/p/q/roles/r/generate', 'other'],
    ['/no/such/route', 'other'],
    ['/v1/models/extra', 'other'],
  ])('%s → %s', (path, label) => {
    expect(routeLabel(path)).toBe(label);
  });
});
