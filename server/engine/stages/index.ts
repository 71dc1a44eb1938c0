/** The stage registry: stage name → implementation. Stages later work adds plug in here. */
import type { StageName } from '../../profiles/types';
import type { Stage } from '../types';
import { answerStage } from './answer';
import { contextStage } from './context';
import { gateStage } from './gate';
import { finalResolveRefsStage } from './final-resolve-refs';
import { inDepthStage } from './indepth';
import { inDepthGateStage } from './indepth-gate';
import { resolveRefsStage } from './resolve-refs';

export const STAGES: Readonly<Partial<Record<StageName, Stage>>> = Object.freeze({
  context: contextStage,
  answer: answerStage,
  gate: gateStage,
  resolve_refs: resolveRefsStage,
  final_resolve_refs: finalResolveRefsStage,
  indepth: inDepthStage,
  indepth_gate: inDepthGateStage,
});
