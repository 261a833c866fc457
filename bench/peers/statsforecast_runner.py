"""Peer runner for bench/accuracy.ts and bench/forecastSpeed.ts: Nixtla statsforecast on the same series.

    python statsforecast_runner.py <tasks.json> <out.csv> <methods, comma-separated>

tasks.json: [{"id": "...", "m": 12, "h": 18, "y": [...]}, ...] — one task = fit on y, forecast h steps.
out.csv:    id,method,seconds,mean (space-separated h values; seconds = the method's CPU time for its (m, h) group
            divided by the group's task count, statsforecast fits a whole data frame at once)
Methods: ets (AutoETS), arima (AutoARIMA), theta (AutoTheta), croston (CrostonClassic), naive (Naive),
snaive (SeasonalNaive), rwdrift (RandomWalkWithDrift). Single process (n_jobs=1).
"""
import json
import sys
import time

import numpy as np
import pandas as pd
from statsforecast import StatsForecast
from statsforecast.models import AutoARIMA, AutoETS, AutoTheta, CrostonClassic, Naive, RandomWalkWithDrift, SeasonalNaive


CHUNK = 50


def model(name, m):
    if name == "ets":
        return AutoETS(season_length=m, alias="ets")
    if name == "arima":
        return AutoARIMA(season_length=m, alias="arima")
    if name == "theta":
        return AutoTheta(season_length=m, alias="theta")
    if name == "croston":
        return CrostonClassic(alias="croston")
    if name == "naive":
        return Naive(alias="naive")
    if name == "snaive":
        return SeasonalNaive(season_length=m, alias="snaive")
    if name == "rwdrift":
        return RandomWalkWithDrift(alias="rwdrift")
    raise ValueError(name)


def main():
    tasks = json.load(open(sys.argv[1]))
    methods = sys.argv[3].split(",")
    # groups of one (m, h), in chunks of CHUNK tasks in input order, so that a run stopped at its time limit has
    # written every finished chunk (the file is flushed after each)
    open_chunk = {}
    order = []
    for t in tasks:
        key = (int(t["m"]), int(t["h"]))
        c = open_chunk.get(key)
        if c is None or len(c) >= CHUNK:
            c = open_chunk[key] = []
            order.append((key, c))
        c.append(t)
    with open(sys.argv[2], "w") as out:
        out.write("id,method,seconds,mean\n")
        for (m, h), ts in order:
            ids = np.concatenate([[t["id"]] * len(t["y"]) for t in ts])
            ds = np.concatenate([np.arange(len(t["y"])) for t in ts])
            y = np.concatenate([np.asarray(t["y"], dtype=float) for t in ts])
            df = pd.DataFrame({"unique_id": ids, "ds": ds, "y": y})
            for name in methods:
                sf = StatsForecast(models=[model(name, m)], freq=1, n_jobs=1)
                t0 = time.process_time()
                try:
                    fc = sf.forecast(df=df, h=h)
                    ok = True
                except Exception as e:  # noqa: BLE001
                    print(f"statsforecast {name} (m={m}, h={h}) failed: {e}", file=sys.stderr)
                    ok = False
                el = (time.process_time() - t0) / len(ts)
                if ok:
                    if "unique_id" not in fc.columns:
                        fc = fc.reset_index()
                    by = {k: g[name].to_numpy() for k, g in fc.groupby("unique_id", sort=False)}
                for t in ts:
                    v = by.get(t["id"]) if ok else None
                    vals = " ".join("NA" if (v is None or not np.isfinite(x)) else repr(float(x)) for x in (v if v is not None else [np.nan] * h))
                    out.write(f"{t['id']},{name},{el:.6f},{vals}\n")
            out.flush()


if __name__ == "__main__":
    main()
