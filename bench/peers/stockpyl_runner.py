"""Peer runner for bench/inventory.ts: stockpyl 1.0.2 on the same random inventory instances.

    python stockpyl_runner.py <instances.json> <out.json>

instances.json: {"eoq": [...], "ww": [...], "rq_poisson": [...], "rq_normal": [...], "ss": [...],
                 "base_stock": [...], "gsm": [...], "serial": [...]}, each a list of instances (fields below).
out.json:       the same keys, each a list of {"ok": bool, "error"?: str, "seconds": float, ...result} in input order;
                seconds is the wall time of the solver call alone (building stockpyl's network objects excluded).
Single process, one core. Poisson paths need numpy < 2 (stockpyl 1.0.2 calls removed numpy aliases).
"""
import json
import sys
import time

from stockpyl.demand_source import DemandSource
from stockpyl.eoq import economic_order_quantity
from stockpyl.gsm_tree import optimize_committed_service_times
from stockpyl.newsvendor import newsvendor_normal, newsvendor_poisson
from stockpyl.rq import r_q_cost, r_q_loss_function_approximation, r_q_poisson_exact
from stockpyl.ss import s_s_discrete_exact
from stockpyl.ssm_serial import optimize_base_stock_levels
from stockpyl.supply_chain_network import network_from_edges
from stockpyl.wagner_whitin import wagner_whitin

TAIL = 1e-12


def eoq(x):
    t0 = time.perf_counter()
    q, cost = economic_order_quantity(x["K"], x["h"], x["lam"])
    return time.perf_counter() - t0, {"Q": q, "cost": cost}


def ww(x):
    t0 = time.perf_counter()
    q, cost, _, _ = wagner_whitin(len(x["d"]), x["h"], x["K"], x["d"])
    el = time.perf_counter() - t0
    # stockpyl indexes periods from 1; element 0 is unused
    return el, {"Q": [float(v) for v in list(q)[1:]], "cost": cost}


def rq_poisson(x):
    t0 = time.perf_counter()
    r, q, cost = r_q_poisson_exact(x["h"], x["p"], x["K"], x["lam"], x["L"])
    return time.perf_counter() - t0, {"r": r, "Q": q, "cost": cost}


def rq_normal(x):
    t0 = time.perf_counter()
    r, q = r_q_loss_function_approximation(x["h"], x["p"], x["K"], x["lam"], x["sd"], x["L"])
    el = time.perf_counter() - t0
    return el, {"r": r, "Q": q, "cost": r_q_cost(r, q, x["h"], x["p"], x["K"], x["lam"], x["sd"], x["L"])}


def ss(x):
    t0 = time.perf_counter()
    s, S, cost = s_s_discrete_exact(x["h"], x["p"], x["K"], True, x["mu"])
    return time.perf_counter() - t0, {"s": s, "S": S, "cost": cost}


def base_stock(x):
    t0 = time.perf_counter()
    if x["kind"] == "poisson":
        S, cost = newsvendor_poisson(x["h"], x["p"], x["mean"])
    else:
        S, cost = newsvendor_normal(x["h"], x["p"], x["mean"], x["sd"])
    return time.perf_counter() - t0, {"S": S, "cost": cost}


def gsm(x):
    ids = [s["id"] for s in x["stages"]]
    net = network_from_edges(
        [(a["from"], a["to"]) for a in x["arcs"]],
        node_order_in_lists=ids,
        processing_time=[s["T"] for s in x["stages"]],
        local_holding_cost=[s["h"] for s in x["stages"]],
        demand_bound_constant=x["z"],
        external_inbound_cst=[s.get("si") for s in x["stages"]],
        external_outbound_cst=[s.get("sOut") for s in x["stages"]],
        demand_type=["N" if "sd" in s else None for s in x["stages"]],
        mean=[s.get("mean") for s in x["stages"]],
        standard_deviation=[s.get("sd") for s in x["stages"]],
    )
    t0 = time.perf_counter()
    cst, cost = optimize_committed_service_times(net)
    el = time.perf_counter() - t0
    return el, {"S": {str(k): int(v) for k, v in cst.items()}, "cost": cost}


def serial(x):
    # stockpyl lists stages N..1; instances list stage 1 (facing demand) first
    st = list(reversed(x["stages"]))
    t0 = time.perf_counter()
    S, cost = optimize_base_stock_levels(
        num_nodes=len(st),
        echelon_holding_cost=[s["h"] for s in st],
        lead_time=[s["L"] for s in st],
        stockout_cost=x["p"],
        demand_source=DemandSource(type="P", mean=x["mean"]),
        ltd_lower_tail_prob=TAIL, ltd_upper_tail_prob=TAIL, sum_ltd_lower_tail_prob=TAIL, sum_ltd_upper_tail_prob=TAIL,
    )
    el = time.perf_counter() - t0
    return el, {"S": [float(S[j + 1]) for j in range(len(st))], "cost": cost}


SOLVERS = {"eoq": eoq, "ww": ww, "rq_poisson": rq_poisson, "rq_normal": rq_normal, "ss": ss, "base_stock": base_stock, "gsm": gsm, "serial": serial}


def main():
    instances = json.load(open(sys.argv[1]))
    out = {}
    for key, items in instances.items():
        solve = SOLVERS[key]
        rows = []
        t0 = time.perf_counter()
        for x in items:
            try:
                el, res = solve(x)
                rows.append({"ok": True, "seconds": el, **res})
            except Exception as e:  # noqa: BLE001
                rows.append({"ok": False, "error": f"{type(e).__name__}: {e}", "seconds": 0})
        out[key] = rows
        print(f"stockpyl {key}: {len(items)} instances, {time.perf_counter() - t0:.1f} s", flush=True)
    with open(sys.argv[2], "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
