package main

func main() { println("hello from a myco test file") }
