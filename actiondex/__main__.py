from actiondex.cli import main

main()
