/**
 * One contract finding (§7.2), in its own module so the table and citation contracts need not import
 * the module that composes them. Shaped like a temporal gate check so `answerValidation.issues` is
 * uniform; a type alias (not an interface) so it stays assignable to `Record<string, unknown>` lists.
 */
export type ContractIssue = {
  id: string;
  status: 'fail' | 'warn' | 'pass';
  severity: 'block' | 'warn';
  reason: string;
  source_indices: number[];
  claim?: string;
};
