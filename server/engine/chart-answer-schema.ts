/** The hub-owned Answer schema (§3.9), sent to the router for product and `chart_answer` profiles. */
const cell = {
  type: 'object',
  additionalProperties: false,
  required: ['text', 'refs'],
  properties: { text: { type: 'string' }, refs: { type: 'array', items: { type: 'integer' } } },
};

export const CHART_ANSWER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['answer', 'citations', 'blocks'],
  properties: {
    answer: { type: 'string' },
    citations: { type: 'array', items: { type: 'integer' } },
    blocks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'title', 'columns', 'rows'],
        properties: {
          kind: { type: 'string', enum: ['table'] },
          title: { type: 'string' },
          columns: {
            type: 'array',
            items: { type: 'object', additionalProperties: false, required: ['key', 'label'], properties: { key: { type: 'string' }, label: { type: 'string' } } },
          },
          rows: {
            type: 'array',
            items: { type: 'object', additionalProperties: false, required: ['cells'], properties: { cells: { type: 'object', additionalProperties: cell } } },
          },
        },
      },
    },
  },
} as const;

export const CHART_ANSWER_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: { name: 'chart_answer', strict: true, schema: CHART_ANSWER_SCHEMA },
} as const;
