/** The product Answer's table and citation contracts (§7.2): pure checks that repair or withhold what breaks them. */
// The engine's gate runs the whole contract; the temporal In-Depth gate canonicalises grouped markers the same way.
export { runContractGate } from './gate';
export { canonicalizeCitationGroups } from './citations';
// The single contracts, as the composing module published them before it became this folder.
export { applyCitationContract, isSingleClaim } from './citations';
export { checkTable } from './tables';
