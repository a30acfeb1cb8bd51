-- GET of any path with the benchmark user's token (wrk -s path.lua; the path in TRENDY_BENCH_PATH). run.sh measures
-- /api/v1/changes/latest-cursor with it: a request through the whole pipeline with a tiny answer, so what it costs
-- is the server's fixed cost per request.
wrk.method = "GET"
wrk.path = os.getenv("TRENDY_BENCH_PATH") or "/api/v1/changes/latest-cursor"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("TRENDY_BENCH_TOKEN") or "bench")
