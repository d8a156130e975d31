from psychoagent.cli import main

main()
