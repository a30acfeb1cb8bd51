import TrendyCLI

await TrendyctlMain.main()
