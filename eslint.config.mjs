// Lint: the regular expressions that read model, chart and client text must stay linear-time
// (a quadratic pattern on a long whitespace run froze the hub for seconds). Type checking is tsc's job.
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'clients/*/dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-move': 'error',
      'regexp/no-super-linear-backtracking': 'error',
    },
  },
  {
    // Error codes are decided on in one place (server/errors.ts): elsewhere a caller branches on a
    // HubError subclass or a predicate from there, never on a code string.
    files: ['server/**/*.ts'],
    ignores: ['server/errors.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "BinaryExpression[operator=/^[!=]==?$/][left.property.name='code'][right.type=/^(Literal|TemplateLiteral)$/]",
          "BinaryExpression[operator=/^[!=]==?$/][right.property.name='code'][left.type=/^(Literal|TemplateLiteral)$/]",
          "SwitchStatement[discriminant.property.name='code']",
          "CallExpression[callee.property.name=/^(has|includes)$/] > MemberExpression.arguments[property.name='code']",
        ].map((selector) => ({ selector, message: 'Branch on a HubError subclass or a predicate from server/errors.ts, not on a code string.' })),
      ],
    },
  },
);
