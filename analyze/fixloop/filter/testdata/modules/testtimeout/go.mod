module example.com/testtimeout

go 1.26
