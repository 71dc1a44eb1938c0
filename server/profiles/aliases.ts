/**
 * Profile aliases: other ids that resolve to one compiled profile (issue #33). Deployed clients pin
 * [REF] ids (`single-e4b-checked`, `team-med-checked`, …); an alias lets each reach a real profile
 * without a second copy of it. The compile-time rules live here with the index the catalogue uses.
 */
import { profileError } from './rules';
import type { Profile } from './types';

/** Every alias names exactly one profile and never shadows a profile id (start-up stops otherwise). */
export function checkAliases(profiles: readonly Profile[]): void {
  const ids = new Set(profiles.map((p) => p.id));
  const owner = new Map<string, string>();
  for (const p of profiles) {
    // Catalyst requires profileEvidence.profileId == the id it asked for: an alias would break that check.
    if (p.aliases.length > 0 && p.workflow === 'catalyst_query') throw profileError(p.id, 'a catalyst_query profile cannot have aliases (Catalyst checks profileEvidence.profileId against the id it asked for)');
    for (const alias of p.aliases) {
      if (alias === p.id) throw profileError(p.id, `alias '${alias}' is the profile's own id`);
      if (ids.has(alias)) throw profileError(p.id, `alias '${alias}' is the id of another profile`);
      const first = owner.get(alias);
      if (first !== undefined) throw profileError(p.id, `alias '${alias}' is already an alias of profile '${first}'`);
      owner.set(alias, p.id);
    }
  }
}

/** alias → its profile (the catalogue resolves an alias to the canonical, frozen profile). */
export function aliasIndex(profiles: readonly Profile[]): Map<string, Profile> {
  return new Map(profiles.flatMap((p) => p.aliases.map((alias) => [alias, p] as const)));
}
