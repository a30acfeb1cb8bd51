-- GET /api/v1/changes?since=0&limit=100 with the benchmark user's token (wrk -s feed.lua).
wrk.method = "GET"
wrk.path = "/api/v1/changes?since=0&limit=100"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("TRENDY_BENCH_TOKEN") or "bench")
wrk.headers["Accept"] = "application/json"
