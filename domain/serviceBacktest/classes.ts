import type { DemandClass } from '../characterization/characterize';

/** The demand classes the backtest groups by (Syntetos–Boylan–Croston, domain/characterization). */
export const DEMAND_CLASSES: readonly DemandClass[] = ['smooth', 'erratic', 'intermittent', 'lumpy'];
