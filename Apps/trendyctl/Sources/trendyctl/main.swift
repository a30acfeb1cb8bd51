print("trendyctl")
