from actiondex.cli import main

# Guarded: a worker's forkserver (actiondex/jobs/forked.py) imports the main module again.
if __name__ == "__main__":
    main()
