"""`python -m nlibuild` runs the command-line interface."""

from nlibuild.cli import main

if __name__ == "__main__":
    main()
