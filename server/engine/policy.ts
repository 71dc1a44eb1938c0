/** Per-request temporal policy (§4.7): product profiles always enforce; others may be tuned by the request. */
import type { GateMode, Profile } from '../profiles/types';
import type { RequestContext, TemporalPolicy } from './types';

const GATE_MODES: readonly GateMode[] = ['off', 'warn', 'enforce'];

export function temporalPolicy(profile: Profile, context: RequestContext | null | undefined): TemporalPolicy {
  if (profile.policies.output === 'product') return { enabled: true, mode: 'enforce' };
  const enabled = typeof context?.temporal === 'boolean' ? context.temporal : true;
  const requested = context?.temporal_gate;
  const mode = typeof requested === 'string' && (GATE_MODES as readonly string[]).includes(requested) ? (requested as GateMode) : profile.policies.temporalGate;
  return { enabled, mode: enabled ? mode : 'off' };
}
