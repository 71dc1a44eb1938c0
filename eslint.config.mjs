// Lint: the regular expressions that read model, chart and client text must stay linear-time
// (a quadratic pattern on a long whitespace run froze the hub for seconds). Type checking is tsc's job.
import tseslint from 'typescript-eslint';
import regexp from 'eslint-plugin-regexp';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' },
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-move': 'error',
      'regexp/no-super-linear-backtracking': 'error',
    },
  },
);
