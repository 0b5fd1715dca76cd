from cclab.cli import main

main()
