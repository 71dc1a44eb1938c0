/** Per-request temporal policy (§4.7): product profiles always enforce; others may be tuned by the request. */
import type { GateMode, Profile } from '../profiles';
import type { RequestContext, TemporalPolicy } from './types';

const GATE_MODES: readonly GateMode[] = ['off', 'warn', 'enforce'];

/**
 * Facts are on unless the request says `context.temporal: false` — except on a low-level leg whose gate is
 * off (`~off`, or `temporal_gate: "off"`): nothing reads its facts there, so they are computed and sent only
 * when the request asks for them with `context.temporal: true` (issue 27: no work a leg does not need).
 */
export function temporalPolicy(profile: Profile, context: RequestContext | null | undefined): TemporalPolicy {
  if (profile.policies.output === 'product') return { enabled: true, mode: 'enforce' };
  const requested = context?.temporal_gate;
  const mode = typeof requested === 'string' && (GATE_MODES as readonly string[]).includes(requested) ? (requested as GateMode) : profile.policies.temporalGate;
  const enabled = typeof context?.temporal === 'boolean' ? context.temporal : !(profile.lowLevelLeg && mode === 'off');
  return { enabled, mode: enabled ? mode : 'off' };
}
