# Peer runner for bench/accuracy.ts and bench/forecastSpeed.ts: R's forecast package on the same series.
#
#   Rscript forecast.R <tasks.json> <out.csv> <methods, comma-separated>
#
# tasks.json: [{"id": "...", "m": 12, "h": 18, "y": [...]}, ...] — one task = fit on y, forecast h steps.
# out.csv:    id,method,seconds,mean (seconds: CPU time of the fit and forecast; space-separated h values, NA where
#             the method failed)
# Methods: ets (forecast::ets, defaults: AICc over the admissible models; R ignores seasonality above frequency 24),
# arima (auto.arima, defaults: stepwise, approximation for long or high-frequency series), theta (thetaf),
# croston (croston, alpha 0.1), naive, snaive, rwdrift.
suppressPackageStartupMessages({
  library(jsonlite)
  library(forecast)
})
args <- commandArgs(trailingOnly = TRUE)
tasks <- fromJSON(args[1], simplifyVector = FALSE)
out <- file(args[2], open = "w")
methods <- strsplit(args[3], ",")[[1]]
writeLines("id,method,seconds,mean", out)

run <- function(method, x, h) {
  switch(method,
    ets = forecast(ets(x), h = h, level = 90)$mean,
    arima = forecast(auto.arima(x), h = h, level = 90)$mean,
    theta = thetaf(x, h = h, level = 90)$mean,
    croston = croston(x, h = h)$mean,
    naive = naive(x, h = h, level = 90)$mean,
    snaive = snaive(x, h = h, level = 90)$mean,
    rwdrift = rwf(x, h = h, drift = TRUE, level = 90)$mean,
    stop(paste("unknown method", method)))
}

# CPU seconds of this process (user + system): robust to other load on the machine
cpu <- function() { p <- proc.time(); p[["user.self"]] + p[["sys.self"]] }

for (task in tasks) {
  x <- ts(as.numeric(unlist(task$y)), frequency = task$m)
  h <- task$h
  for (method in methods) {
    t0 <- cpu()
    fc <- tryCatch(suppressWarnings(as.numeric(run(method, x, h))), error = function(e) rep(NA_real_, h))
    el <- cpu() - t0
    if (length(fc) != h) fc <- rep(NA_real_, h)
    writeLines(sprintf("%s,%s,%.4f,%s", task$id, method, el, paste(format(fc, digits = 15, scientific = FALSE, trim = TRUE), collapse = " ")), out)
  }
  flush(out) # a run stopped at its time limit still leaves every finished task readable
}
close(out)
