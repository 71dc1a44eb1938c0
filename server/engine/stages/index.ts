/** The stage registry: stage name → implementation. Stages later work adds plug in here. */
import type { StageName } from '../../profiles';
import type { Stage } from '../types';
import { agreeStage } from './agree';
import { answerStage } from './answer';
import { contextStage } from './context';
import { gatherStage } from './gather';
import { gateStage } from './gate';
import { groundVerdictsStage } from './ground-verdicts';
import { finalResolveRefsStage } from './final-resolve-refs';
import { inDepthStage } from './indepth';
import { inDepthGateStage } from './indepth-gate';
import { resolveRefsStage } from './resolve-refs';
import { reviewStage } from './review';

export const STAGES: Readonly<Partial<Record<StageName, Stage>>> = Object.freeze({
  context: contextStage,
  gather: gatherStage,
  answer: answerStage,
  gate: gateStage,
  resolve_refs: resolveRefsStage,
  review: reviewStage,
  final_resolve_refs: finalResolveRefsStage,
  ground_verdicts: groundVerdictsStage,
  agree: agreeStage,
  indepth: inDepthStage,
  indepth_gate: inDepthGateStage,
});
