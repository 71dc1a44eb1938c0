import { CITATION_MARKER, citationMarkers, markerIndices } from '../../../server/answer/citations';

/**
 * The one marker reader, both spacings side by side: `tight` decides what an Answer cites, `padded`
 * locates markers (usage sentences, claims stripped for grounding, In-Depth repair). The rows where
 * the columns differ are the padded forms, the difference issue #28 pinned rather than changed.
 */
describe('citation markers: tight vs padded', () => {
  test.each<[string, number[], number[], number[]]>([
    // text, markerIndices tight, markerIndices padded, citationMarkers (tight, positive, deduplicated)
    ['Weight fell [3] then [2].', [3, 2], [3, 2], [3, 2]],
    ['Grouped [3, 2] and repeated [3].', [3, 2, 3], [3, 2, 3], [3, 2]],
    ['Grouped without a blank [2,3].', [2, 3], [2, 3], [2, 3]],
    ['Adjacent [1][2].', [1, 2], [1, 2], [1, 2]],
    ['Padded [ 3 ] only.', [], [3], []],
    ['Half padded [3 ] and [ 4].', [], [3, 4], []],
    ['Padded group [ 2 , 5 ].', [], [2, 5], []],
    ['Mixed [1] and [ 2 ].', [1], [1, 2], [1]],
    ['Zero [0] is read but never cited.', [0], [0], []],
    ['Too large [99999999999999999999] is read but never cited.', [1e20], [1e20], []],
    ['Words [x], semicolons [2; 3] and signs [-1] are not markers.', [], [], []],
    ['No markers here.', [], [], []],
  ])('%s', (text, tight, padded, cited) => {
    expect(markerIndices(text, 'tight')).toEqual(tight);
    expect(markerIndices(text, 'padded')).toEqual(padded);
    expect(markerIndices(text)).toEqual(padded);
    expect(citationMarkers(text)).toEqual(cited);
  });

  it('CITATION_MARKER strips exactly the padded markers', () => {
    expect('A [1], B [ 2 ] and C [3, 4]; D [x].'.replace(CITATION_MARKER, '#')).toBe('A #, B # and C #; D [x].');
  });
});
